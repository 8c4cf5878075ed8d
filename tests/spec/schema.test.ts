import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { parseDocument } from "yaml";
import { StudySpecSchema } from "../../src/contracts/spec.js";
import { loadSpec } from "../../src/core/spec-loader.js";
import { generateSpecSchema, renderSpecSchema, SCHEMA_PATH } from "../../scripts/write-schema.js";
import { validateJsonSchema } from "./json-schema-subset.js";

const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/specs/${name}`, import.meta.url));
const yamlData = (name: string) => parseDocument(readFileSync(fixture(name), "utf8")).toJS() as unknown;

describe("schema/spec.schema.json", () => {
  it("is exactly what npm run schema generates (no drift from the zod schema)", () => {
    assert.equal(
      readFileSync(SCHEMA_PATH, "utf8"),
      renderSpecSchema(),
      "schema/spec.schema.json is stale: run `npm run schema` and commit the result",
    );
  });

  it("describes the input side: keys with defaults are optional", () => {
    const schema = generateSpecSchema();
    assert.deepEqual(schema.required, ["study", "models", "benchmarks", "conditions"]);
    assert.equal(schema.additionalProperties, false);
  });

  for (const name of ["valid/minimal.yaml", "valid/full.yaml"]) {
    it(`accepts ${name}, as the zod schema does`, () => {
      const data = yamlData(name);
      assert.deepEqual(validateJsonSchema(generateSpecSchema(), data), []);
      assert.ok(StudySpecSchema.safeParse(data).success, "expected StudySpecSchema.safeParse(data).success");
      assert.doesNotThrow(() => loadSpec(fixture(name)));
    });
  }

  for (const [name, expected] of [
    ["invalid/temperature-out-of-range.yaml", "$.models[0].params.temperature: above maximum 2"],
    ["invalid/unknown-top-level-key.yaml", "$: unknown key modles"],
    ["invalid/bad-facet-name.yaml", "$.conditions.facets key Answer-Format: does not match"],
  ] as const) {
    it(`rejects ${name}, as the zod schema does`, () => {
      const data = yamlData(name);
      const errors = validateJsonSchema(generateSpecSchema(), data);
      assert.ok(
        errors.some((e) => e.startsWith(expected)),
        errors.join("\n"),
      );
      assert.equal(StudySpecSchema.safeParse(data).success, false);
    });
  }
});
