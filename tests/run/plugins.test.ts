/**
 * Plugin loading in process: the module forms accepted, one registration per file, and the
 * provider example of docs/EXTENDING.md registered and called through the provider registry.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { providers } from "../../src/models/registry.js";
import { loadSpecPlugins, pluginApi } from "../../src/run/prepare/plugins.js";
import { scorers } from "../../src/scoring/registry.js";

const work = mkdtempSync(join(tmpdir(), "parallax-plugins-"));
after(() => rmSync(work, { recursive: true, force: true }));

function specNaming(name: string, plugins: string[]): string {
  const path = join(work, `${name}.yaml`);
  writeFileSync(path, `study: ${name}\nplugins:\n${plugins.map((p) => `  - ${p}\n`).join("")}`);
  return path;
}

describe("loading the spec's plugins", () => {
  test("the provider example of docs/EXTENDING.md registers and answers", async () => {
    writeFileSync(
      join(work, "echo.mjs"),
      `export const echoProvider = (spec, env) => ({
  name: "echo",
  simulated: true,
  capabilities: () => new Set(["generate", "system_prompt", "temperature"]),
  async generate(request) {
    const text = \`Answer: A (echoing \${request.messages.length} message(s) for \${spec.model})\`;
    return { text, usage: { inputTokens: 1, outputTokens: 1 }, finishReason: "stop", paramsUsed: request.params, droppedParams: [] };
  },
});
export function register(api) {
  api.providers.register("echo", { name: "echo", local: true, create: async (spec, env) => echoProvider(spec, env) });
}
`,
    );
    await loadSpecPlugins(specNaming("echo", ["./echo.mjs"]));
    const provider = await providers.get("echo").create({ id: "e", provider: "echo", model: "any" } as never, {});
    const result = await provider.generate({ model: "any", messages: [{ role: "user", content: "hi" }], params: {} });
    assert.equal(result.text, "Answer: A (echoing 1 message(s) for any)");
  });

  test("a default-export object with register works; a file named twice registers once", async () => {
    writeFileSync(
      join(work, "scorer.mjs"),
      `export default {
  register(api) {
    api.scorers.register("always_one", { name: "always_one", version: "1.0.0", kind: "text",
      score: () => ({ parsedAnswer: "x", parseStatus: "ok", score: 1 }) });
  },
};
`,
    );
    const spec = specNaming("scorer", ["./scorer.mjs", `${join(work, "scorer.mjs")}`]);
    await loadSpecPlugins(spec);
    await loadSpecPlugins(spec);
    assert.ok(scorers.has("always_one"), 'expected scorers.has("always_one")');
  });

  test("the api hands out the running registries and version", () => {
    assert.equal(pluginApi.scorers, scorers);
    assert.equal(pluginApi.providers, providers);
    assert.match(pluginApi.version, /^\d+\.\d+\.\d+/);
  });

  test("a spec without plugins, or one that cannot be read, loads nothing", async () => {
    await loadSpecPlugins(join(work, "absent.yaml"));
    writeFileSync(join(work, "none.yaml"), "study: none\n");
    await loadSpecPlugins(join(work, "none.yaml"));
  });
});

describe("a plugin loader's metadata must name registered scorers and rubrics", () => {
  test("an unknown scorer or rubric is refused when the plugins load (exit 2), naming the known ones", async () => {
    writeFileSync(
      join(work, "bad-loader.mjs"),
      `export function register(api) {
  api.loaders.register("bad_meta", {
    name: "bad_meta",
    meta: { outcomeMeaning: "x", scoring: "mc", baseline: "uniform", archetype: "diagnostic",
      scorers: { mc: "mc_last_answr", open: "exact_answer", logprob: "logprob_options" }, judgeRubric: "vibes" },
    load: async () => ({ items: [], sources: {}, skippedRows: 0 }),
  });
}
`,
    );
    await assert.rejects(
      loadSpecPlugins(specNaming("bad-loader", ["./bad-loader.mjs"])),
      (error: Error & { exitCode?: number }) => {
        assert.equal(error.exitCode, 2);
        assert.match(
          error.message,
          /plugin loader 'bad_meta': meta\.scorers\.mc 'mc_last_answr' is not a registered scorer \(known: .*mc_last_answer/,
        );
        assert.match(error.message, /meta\.judgeRubric 'vibes' is not a registered rubric \(known: bbq_oe, compliance/);
        return true;
      },
    );
  });
});
