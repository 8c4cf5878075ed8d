/**
 * lazySchema (src/contracts/lazy-schema.ts): the stand-in builds its schema once, when first read,
 * and behaves as the schema for parsing, zod's methods, instanceof, nesting and JSON Schema.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { z } from "zod";
import { lazySchema } from "../../src/contracts/lazy-schema.js";

/** A stand-in and the number of times it has built its schema. */
function counted() {
  let builds = 0;
  const schema = lazySchema(() => {
    builds++;
    return z.object({ rounds: z.number().int().min(1).default(2), label: z.string().optional() }).strict();
  });
  return { schema, builds: () => builds };
}

describe("lazySchema", () => {
  it("builds nothing until read, then once", () => {
    const { schema, builds } = counted();
    assert.equal(builds(), 0);
    assert.deepEqual(schema.parse({}), { rounds: 2 });
    assert.deepEqual(schema.parse({ rounds: 5, label: "x" }), { rounds: 5, label: "x" });
    assert.equal(builds(), 1);
  });

  it("parses and refuses as the schema does, with the same issues", () => {
    const { schema } = counted();
    const built = z.object({ rounds: z.number().int().min(1).default(2), label: z.string().optional() }).strict();
    for (const input of [{ rounds: 0 }, { max_rounds: 3 }, { rounds: "two" }, "not an object"]) {
      const lazy = schema.safeParse(input);
      const plain = built.safeParse(input);
      assert.equal(lazy.success, false);
      assert.deepEqual(lazy.error?.issues, plain.error?.issues);
    }
  });

  it("answers instanceof and zod's methods for the built schema", () => {
    const { schema } = counted();
    assert.ok(schema instanceof z.ZodObject, "expected schema instanceof z.ZodObject");
    assert.deepEqual(Object.keys(schema.shape), ["rounds", "label"]);
    assert.deepEqual(schema.pick({ label: true }).parse({ label: "y" }), { label: "y" });
    assert.deepEqual(schema.extend({ extra: z.boolean() }).parse({ extra: true }), { rounds: 2, extra: true });
    assert.equal(schema.describe("settings").description, "settings");
  });

  it("is built by an outer schema when that first reaches it, and gives the same JSON Schema", () => {
    const { schema, builds } = counted();
    const outer = z.object({ settings: schema.optional() });
    const plain = z.object({
      settings: z
        .object({ rounds: z.number().int().min(1).default(2), label: z.string().optional() })
        .strict()
        .optional(),
    });
    assert.deepEqual(outer.parse({ settings: {} }), { settings: { rounds: 2 } });
    assert.ok(builds() >= 1, "expected builds() >= 1");
    assert.deepEqual(z.toJSONSchema(outer), z.toJSONSchema(plain));
  });
});
