/** The spec's `agents` section: defaults, checks against the tool and web-backend registries, and the toolbox options it gives. */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { parseSpec, SpecError } from "../../src/core/spec-loader.js";
import { validateStudy } from "../../src/facets/validate.js";
import { toolboxOptionsOf } from "../../src/tools/from-spec.js";
import { DEFAULT_SANDBOX_LIMITS } from "../../src/tools/sandbox.js";
import { createToolbox } from "../../src/tools/toolbox.js";
import { demoSpecYaml } from "../helpers/study.js";
import { needsBubblewrap } from "../helpers/prerequisites.js";

const FILE = "study.yaml";
const withAgents = (agents: string) => `${demoSpecYaml()}agents:\n${agents}\n`;

function problemsOf(text: string): string[] {
  const spec = parseSpec(text, FILE);
  try {
    validateStudy(spec, { text, path: FILE });
  } catch (error) {
    assert.ok(error instanceof SpecError, String(error));
    return error.message.split("\n").slice(1);
  }
  return [];
}

function lineOf(text: string, needle: string): number {
  return text.split("\n").findIndex((line) => line.includes(needle)) + 1;
}

describe("spec: agents", () => {
  const dir = mkdtempSync(join(tmpdir(), "parallax-agents-spec-"));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("fills the sandbox defaults, which are the library's defaults", () => {
    const spec = parseSpec(withAgents("  tools: [bash, python]"), FILE);
    const options = toolboxOptionsOf(spec.agents, { specDir: dir });
    assert.deepEqual(options.limits, DEFAULT_SANDBOX_LIMITS);
    assert.deepEqual(options.tools, ["bash", "python"]);
    assert.equal(options.webBackend, undefined);
    assert.deepEqual(problemsOf(withAgents("  tools: [bash, python]")), []);
  });

  it("names an unknown tool, web backend or backend setting with its line", () => {
    const badTool = withAgents("  tools: [bash, web_crawler]");
    const [toolProblem] = problemsOf(badTool);
    assert.match(
      toolProblem,
      new RegExp(
        `study\\.yaml:${lineOf(badTool, "web_crawler")}:.*agents\\.tools\\[1\\].*unknown tool 'web_crawler'.*bash`,
      ),
    );
    const badBackend = withAgents("  web: { backend: google }");
    assert.match(problemsOf(badBackend)[0], /agents\.web\.backend.*unknown web backend 'google'.*brave, offline/);
    const badSetting = withAgents("  web: { backend: offline, dir: docs }");
    const settingProblems = problemsOf(badSetting).join("\n");
    assert.match(settingProblems, /agents\.web/);
    assert.match(settingProblems, /dir/);
  });

  it("refuses sandbox limits out of range at load time", () => {
    assert.throws(() => parseSpec(withAgents("  sandbox: { max_processes: 1 }"), FILE), /max_processes/);
    assert.throws(() => parseSpec(withAgents("  sandbox: { wall_secs: 5 }"), FILE), /wall_secs/);
  });

  it("builds the offline web from a folder relative to the spec, and the limits reach the sandbox", {
    skip: needsBubblewrap(),
  }, async () => {
    mkdirSync(join(dir, "docs"));
    writeFileSync(join(dir, "docs", "tides.txt"), "Tide tables\nHigh tide at Kettle Point is at 06:12.\n");
    const spec = parseSpec(
      withAgents(
        "  tools: [bash, web_search]\n  sandbox: { output_bytes: 64 }\n  web: { backend: offline, folder: docs }",
      ),
      FILE,
    );
    const box = await createToolbox(toolboxOptionsOf(spec.agents, { specDir: dir }));
    try {
      const found = await box.invoke({
        id: "1",
        name: "web_search",
        arguments: JSON.stringify({ query: "high tide" }),
      });
      assert.match(found.output, /offline:\/\/tides\.txt/);
      const flood = await box.invoke({ id: "2", name: "bash", arguments: JSON.stringify({ cmd: "seq 1 1000" }) });
      assert.equal(flood.limitHit, "output");
      assert.match(flood.output, /\[output cut at 64 bytes\]/);
    } finally {
      await box.dispose();
    }
  });
});
