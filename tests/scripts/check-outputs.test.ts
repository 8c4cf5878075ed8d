/**
 * scripts/check-outputs.mjs's comparison (`diff A B`) on small folders, and its refusals. The
 * producing side (`save`, `compare`) runs the built CLI for minutes, so it is not run here.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { after, describe, test } from "node:test";

const SCRIPT = resolve(import.meta.dirname, "../../scripts/check-outputs.mjs");
const work = mkdtempSync(join(tmpdir(), "check-outputs-test-"));
after(() => rmSync(work, { recursive: true, force: true }));

function script(...args: string[]) {
  const r = spawnSync(process.execPath, [SCRIPT, ...args], { encoding: "utf8" });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** A folder of saved outputs holding the given files (paths relative to it). */
function outputs(name: string, files: Record<string, string>): string {
  const dir = join(work, name);
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, rel)), { recursive: true });
    writeFileSync(join(dir, rel), text);
  }
  return dir;
}

const base = {
  "plan/quickstart.json": '{\n  "trials": 2304\n}\n',
  "quickstart/analyze.txt": "exit 0\n--- stdout\nrate 68.5%\n",
};

describe("check-outputs diff", () => {
  test("two identical folders: exit 0 and the count of identical files", () => {
    const r = script("diff", outputs("same-a", base), outputs("same-b", base));
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.equal(r.stdout, "2 files identical\n");
  });

  test("one changed byte: exit 1, naming the file, its first differing line and both versions", () => {
    const changed = { ...base, "quickstart/analyze.txt": "exit 0\n--- stdout\nrate 68.6%\n" };
    const r = script("diff", outputs("byte-a", base), outputs("byte-b", changed));
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.deepEqual(r.stdout.split("\n"), [
      "quickstart/analyze.txt: differs at line 3, column 9",
      "  A: rate 68.5%",
      "  B: rate 68.6%",
      "1 of 2 files differ",
      "",
    ]);
  });

  test("a file in one folder only is a difference, named with the folder that holds it", () => {
    const extra = { ...base, "quickstart/scorecard.md": "# card\n" };
    const r = script("diff", outputs("extra-a", base), outputs("extra-b", extra));
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(r.stdout, /^quickstart\/scorecard\.md: only in B$/m);
    assert.match(r.stdout, /^1 of 3 files differ$/m);
  });

  test("a long line is clipped to 120 columns around its first difference", () => {
    const long = (digit: string) => ({ "analysis.json": `{"values":[${"0.125,".repeat(60)}${digit}]}` });
    const r = script("diff", outputs("long-a", long("1")), outputs("long-b", long("2")));
    assert.equal(r.code, 1, r.stdout + r.stderr);
    const lines = r.stdout.trimEnd().split("\n");
    for (const line of lines) assert.ok(line.length <= 120, `${line.length} columns: ${line}`);
    assert.ok(lines[1]!.endsWith("0.125,1]}"), `the saved line shows where it differs: ${lines[1]}`);
    assert.ok(lines[2]!.endsWith("0.125,2]}"), `the fresh line shows where it differs: ${lines[2]}`);
  });
});

describe("check-outputs refusals", () => {
  test("a missing folder or a wrong argument count: exit 2 with a one-line message", () => {
    const missing = script("diff", join(work, "absent"), outputs("present", base));
    assert.equal(missing.code, 2, missing.stderr);
    assert.match(missing.stderr, /^check-outputs: .*absent is not a folder of saved outputs\n$/);
    const usage = script("compare");
    assert.equal(usage.code, 2, usage.stderr);
    assert.match(usage.stderr, /usage: node scripts\/check-outputs\.mjs save DIR/);
  });

  test("save against a checkout without dist/: exit 2, asks for a build, writes nothing", () => {
    const checkout = join(work, "unbuilt");
    mkdirSync(checkout);
    const target = join(work, "never-written");
    const r = script("save", target, "--root", checkout);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /dist\/bundle\/parallax\.js is missing: run npm run build first/);
    assert.equal(existsSync(target), false, "save wrote its folder despite refusing");
  });

  test("save into a folder that already holds files: exit 2, the files left as they were", () => {
    const full = outputs("full", base);
    const r = script("save", full);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /exists and is not an empty folder/);
    assert.equal(script("diff", full, outputs("full-copy", base)).code, 0, "the folder was changed");
  });
});
