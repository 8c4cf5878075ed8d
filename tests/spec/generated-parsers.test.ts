/**
 * A spec is parsed once, so its check runs without zod's compiled fast path (spec-loader.ts and
 * facets/validate.ts pass `jitless`): zod would otherwise generate a parser with `new Function`
 * for each object schema on its first parse. Checked in a fresh process that counts the
 * functions generated while the quickstart spec loads and its study is prepared.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";

const repo = fileURLToPath(new URL("../..", import.meta.url));

const PROBE = `
const generated = [];
globalThis.Function = new Proxy(Function, {
  construct(target, args) {
    // zod's probe for eval support is an empty function; a parser has a body.
    if (String(args.at(-1) ?? "").trim() !== "") generated.push(args.at(-1));
    return Reflect.construct(target, args);
  },
});
const { prepareStudy } = await import("./src/run/prepare/study.ts");
await prepareStudy("examples/quickstart.yaml");
console.log(JSON.stringify({ generated: generated.length }));
`;

describe("checking a spec", () => {
  it("generates no zod parser while plan prepares the quickstart study", () => {
    const child = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", PROBE], {
      cwd: repo,
      encoding: "utf8",
    });
    assert.equal(child.status, 0, child.stderr);
    assert.deepEqual(JSON.parse(child.stdout.trim().split("\n").at(-1) ?? "{}"), { generated: 0 });
  });
});
