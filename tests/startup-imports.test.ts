import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { fileURLToPath } from "node:url";

const repo = fileURLToPath(new URL("..", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "parallax-imports-"));

/** The packages a CLI command loads: a module hook logs every URL loaded. */
function packagesLoadedBy(args: string[]): Set<string> {
  const log = join(dir, `${args[0]}.log`);
  const hooks = join(dir, "hooks.mjs");
  writeFileSync(
    hooks,
    `import { appendFileSync } from "node:fs";\nexport async function load(url, context, next) {\n  appendFileSync(${JSON.stringify(log)}, url + "\\n");\n  return next(url, context);\n}\n`,
  );
  const register = join(dir, "register.mjs");
  writeFileSync(register, `import { register } from "node:module";\nregister(${JSON.stringify(`file://${hooks}`)});\n`);
  const result = spawnSync(
    process.execPath,
    ["--import", "tsx", "--import", register, join(repo, "src/cli/main.ts"), ...args],
    { cwd: repo, encoding: "utf8" },
  );
  assert.equal(result.status, 0, result.stderr);
  const names = readFileSync(log, "utf8")
    .split("\n")
    .map((url) => /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url)?.[1])
    .filter((name): name is string => name !== undefined);
  return new Set(names);
}

describe("start-up imports", () => {
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("plan on the sim quickstart loads no provider SDK, store, chart or @stdlib package", () => {
    const loaded = packagesLoadedBy(["plan", "examples/quickstart.yaml"]);
    assert.ok(loaded.has("zod") && loaded.has("js-yaml"), [...loaded].join(", "));
    // The located YAML parse is for problems only: a spec that reads and checks cleanly skips it.
    assert.ok(!loaded.has("yaml"), `the yaml library loaded for a clean spec: ${[...loaded].join(", ")}`);
    const heavy = [...loaded].filter((name) =>
      /^(openai|@anthropic-ai\/sdk|@google\/genai|node-llama-cpp|kysely|better-sqlite3|pg|@observablehq\/plot|linkedom)$|^@stdlib\//.test(
        name,
      ),
    );
    assert.deepEqual(heavy, []);
  });
});
