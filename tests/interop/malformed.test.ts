import assert from "node:assert/strict";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { after, test } from "node:test";
import { STAGING_PREFIX } from "../../src/interop/write.js";
import { runCli } from "../helpers/cli.js";
import { readZip } from "../helpers/zip.js";
import { filesIn, interopDir, interopSkip } from "./shared-logs.js";

const work = mkdtempSync(join(tmpdir(), "parallax-malformed-"));
after(() => rmSync(work, { recursive: true, force: true }));

/**
 * Imports `paths` (a good log first, so a partial import would show) and expects exit 2, a
 * message naming the file and entry, and no study directory at all afterwards.
 */
function expectRefused(format: string, paths: string[], file: string, entry: RegExp, what: RegExp): void {
  const out = join(work, `out-${basename(file)}`);
  const result = runCli(["import", format, ...paths, "--out", out]);
  assert.equal(result.status, 2, result.stderr);
  assert.ok(result.stderr.includes(file), `names the file: ${result.stderr}`);
  assert.match(result.stderr, entry);
  assert.match(result.stderr, what);
  assert.equal(existsSync(out), false, "nothing imported: no study directory");
  const staging = readdirSync(work).filter((name) => name.startsWith(STAGING_PREFIX));
  assert.deepEqual(staging, [], "no staging directory left behind");
}

test("a truncated .eval zip is refused, naming the file, and imports nothing", { skip: interopSkip }, () => {
  const good = join(interopDir, "inspect", "log_formats.eval");
  const source = join(interopDir, "inspect", "log_streaming.eval");
  const bytes = readFileSync(source);
  const truncated = join(work, "truncated.eval");
  writeFileSync(truncated, bytes.subarray(0, Math.floor(bytes.length / 2)));
  // The message names the entry the cut falls in: one of the original's entries.
  const names = [...readZip(source).keys()].map((n) => n.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  expectRefused("inspect", [good, truncated], truncated, new RegExp(`\\((${names.join("|")})\\)`), /cut off/);
});

test("a sample entry without its epoch in a .json log is refused, naming the entry and field", {
  skip: interopSkip,
}, () => {
  const source = filesIn("inspect-json", ".json").find((f) => f.includes("arc_sonnet"))!;
  const log = JSON.parse(readFileSync(source, "utf8"));
  delete log.samples[2].epoch;
  const broken = join(work, "no-epoch.json");
  writeFileSync(broken, JSON.stringify(log));
  expectRefused("inspect", [filesIn("inspect-json", ".json")[0], broken], broken, /samples\[2\]/, /field 'epoch'/);
});

test("a bad JSON line in lm-eval samples is refused with its line number", { skip: interopSkip }, () => {
  const dir = join(work, "lm-eval");
  cpSync(join(interopDir, "lm-eval"), dir, { recursive: true });
  const samples = filesIn("lm-eval", ".jsonl")[0];
  const copy = join(dir, basename(samples));
  const lines = readFileSync(samples, "utf8").split("\n");
  lines[3] = lines[3].slice(0, 40);
  writeFileSync(copy, lines.join("\n"), { mode: 0o644 });
  expectRefused("lm-eval", [dir], copy, /line 4/, /not valid JSON/);
});

test("a HELM run directory whose instance lacks its id is refused, naming the entry", { skip: interopSkip }, () => {
  const dirs = ["mmlu", "narrative_qa"].map((prefix) => join(interopDir, "helm", basename(findHelm(prefix))));
  const broken = join(work, "helm-broken");
  mkdirSync(broken);
  cpSync(dirs[1], broken, { recursive: true });
  const file = join(broken, "per_instance_stats.json");
  const stats = JSON.parse(readFileSync(file, "utf8"));
  delete stats[1].instance_id;
  writeFileSync(file, JSON.stringify(stats), { mode: 0o644 });
  expectRefused("helm", [dirs[0], broken], file, /per_instance_stats/, /field '1\.instance_id'/);
});

test("a malformed mapping file is refused at file:line:col with what was expected", { skip: interopSkip }, () => {
  const mapping = join(work, "bad-mapping.yaml");
  writeFileSync(mapping, "facets:\n  scaffold:\n    logs: [a, b]\noutcomes:\n  values: { C: yes }\n");
  const out = join(work, "out-mapping");
  const result = runCli([
    "import",
    "inspect",
    join(interopDir, "inspect", "log_formats.eval"),
    "--out",
    out,
    "--mapping",
    mapping,
  ]);
  assert.equal(result.status, 2);
  assert.match(result.stderr, new RegExp(`${mapping}:3:11: .*facets\\.scaffold\\.logs: expected a mapping`));
  assert.match(result.stderr, new RegExp(`${mapping}:5:16: .*outcomes\\.values\\.C`));
  assert.equal(existsSync(out), false);
});

function findHelm(prefix: string): string {
  return readdirSync(join(interopDir, "helm")).find((d) => d.startsWith(prefix))!;
}
