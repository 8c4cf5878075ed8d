/**
 * An agent study needs a sandbox that runs: `plan` and `run` of examples/agents-quickstart.yaml
 * with bubblewrap hidden (PARALLAX_BWRAP pointing at a file that is not a program) or broken (a
 * bwrap that fails at its own setup) exit 2 naming bubblewrap and how to install it, before any
 * model is built: `run` writes no study directory. A study without tool-using scaffolds does not
 * need bubblewrap, and the agent study plans as before where bubblewrap works.
 */
import assert from "node:assert/strict";
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { after, describe, test } from "node:test";
import { BWRAP_ENV } from "../../src/tools/sandbox.js";
import { runCli } from "../helpers/cli.js";
import { needsBubblewrap } from "../helpers/prerequisites.js";
import { demoSpecYaml } from "../helpers/study.js";

const QUICKSTART = resolve(import.meta.dirname, "..", "..", "examples", "agents-quickstart.yaml");
const INSTALL = "apt-get install bubblewrap";
const dir = mkdtempSync(join(tmpdir(), "parallax-agents-sandbox-"));
// Open to every uid: as root, the sandbox (and plan's probe of it) starts as an unprivileged one.
chmodSync(dir, 0o755);
after(() => rmSync(dir, { recursive: true, force: true }));

/** A file where bubblewrap should be, that is not a program (as a bind mount over /usr/bin/bwrap would hide it). */
const hidden = join(dir, "bwrap-hidden");
writeFileSync(hidden, "not a program\n");
chmodSync(hidden, 0o644);
/** A bwrap that fails at its own setup, as it does where user namespaces are forbidden. */
const broken = join(dir, "bwrap-broken");
writeFileSync(broken, "#!/bin/sh\necho 'bwrap: No permissions to create new namespace' >&2\nexit 1\n");
chmodSync(broken, 0o755);

const withBwrap = (path: string): NodeJS.ProcessEnv => ({ ...process.env, [BWRAP_ENV]: path });

function refusedByPlanAndRun(bwrap: string, expected: RegExp): void {
  const outDir = join(dir, `out-${bwrap.split("/").pop()}`);
  for (const args of [
    ["plan", QUICKSTART],
    ["run", QUICKSTART, "--out", outDir],
  ]) {
    const result = runCli(args, { env: withBwrap(bwrap) });
    assert.equal(result.status, 2, `${args[0]}: ${result.stderr}`);
    assert.equal(result.stdout, "", `${args[0]} prints nothing on stdout (no plan, no capability line)`);
    assert.match(result.stderr, expected, `${args[0]}`);
    assert.ok(result.stderr.includes(INSTALL), `${args[0]} gives the install hint:\n${result.stderr}`);
    assert.match(result.stderr, /agent_react, planner_actor_rater, planner_executor use tools/, args[0]);
  }
  // Refused before the store was opened: no study directory, so no trial and no call.
  assert.equal(existsSync(outDir), false, "run writes no study directory");
}

describe("agent studies refuse to plan or run without a working sandbox", () => {
  test("bubblewrap hidden behind a file that is not a program: exit 2, naming it", () => {
    refusedByPlanAndRun(hidden, new RegExp(`bubblewrap \\(${hidden}\\) is not executable`));
  });

  test("bubblewrap missing: exit 2, naming it", () => {
    refusedByPlanAndRun(join(dir, "no-bwrap"), /bubblewrap \(.*no-bwrap\) is not installed/);
  });

  test("bubblewrap that fails at its own setup: exit 2 with bwrap's message", () => {
    refusedByPlanAndRun(
      broken,
      /bubblewrap \(.*bwrap-broken\) does not run a sandbox here: .*bwrap: No permissions to create new namespace/,
    );
  });

  test("a study without tool-using scaffolds plans without bubblewrap", () => {
    const specPath = join(dir, "no-tools.yaml");
    writeFileSync(specPath, demoSpecYaml({ items: 3 }));
    const result = runCli(["plan", specPath], { env: withBwrap(hidden) });
    assert.equal(result.status, 0, result.stderr);
    assert.match(result.stdout, /provider capability checks: passed/);
  });

  test("with a working bubblewrap, the agent study plans", { skip: needsBubblewrap() }, () => {
    const env = { ...process.env };
    delete env[BWRAP_ENV];
    const result = runCli(["plan", QUICKSTART], { env });
    assert.equal(result.status, 0, result.stderr);
    assert.match(result.stdout, /trials: 324/);
    assert.match(result.stdout, /provider capability checks: passed/);
  });
});
