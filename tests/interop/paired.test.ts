import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { runCli } from "../helpers/cli.js";
import { filesIn, interopSkip } from "./shared-logs.js";

const work = mkdtempSync(join(tmpdir(), "parallax-paired-"));
after(() => rmSync(work, { recursive: true, force: true }));

type RawLog = { eval: { model: string }; samples: { id: number | string; scores: { choice: { value: string } } }[] };

test("the arc_easy logs of two models import as one study and analyse as paired on their shared items", {
  skip: interopSkip,
}, () => {
  const [qwen, sonnet] = ["arc_qwen", "arc_sonnet"].map(
    (name) => filesIn("inspect-json", ".json").find((f) => f.includes(name))!,
  );
  const study = join(work, "arc");
  const imported = runCli(["import", "inspect", qwen, sonnet, "--out", study]);
  assert.equal(imported.status, 0, imported.stderr);
  const analysed = runCli(["analyze", study, "--json"]);
  // Three shared items are fewer than the plan's minimum of cases: the gate fails (exit 3).
  assert.equal(analysed.status, 3, analysed.stderr);
  const record = JSON.parse(analysed.stdout);

  // Expected from the raw logs: the shared items, and who is right on each.
  const read = (f: string) => JSON.parse(readFileSync(f, "utf8")) as RawLog;
  const [a, b] = [read(qwen), read(sonnet)];
  const correct = (log: RawLog) => new Map(log.samples.map((s) => [String(s.id), s.scores.choice.value === "C"]));
  const [ra, rb] = [correct(a), correct(b)];
  const shared = [...ra.keys()].filter((id) => rb.has(id));
  assert.ok(shared.length >= 2 && shared.length < rb.size, "the pair shares some items, not all");
  const lost = shared.filter((id) => ra.get(id) && !rb.get(id)).length;
  const gained = shared.filter((id) => !ra.get(id) && rb.get(id)).length;

  // The models are the levels of the `subject` facet; the reference is the first log's model.
  assert.equal(record.analysis.meta.comparisonFacet, "subject");
  assert.deepEqual(record.analysis.meta.levels, [a.eval.model, b.eval.model]);
  const flips = record.analysis.paired.flips.find((f: { benchmark: string }) => f.benchmark === "all");
  assert.equal(flips.condition, b.eval.model);
  assert.equal(flips.pairs, shared.length, "paired on the shared items only");
  assert.equal(flips.mcnemar.b, lost);
  assert.equal(flips.mcnemar.c, gained);
  assert.equal(flips.flips.net, (gained - lost) / shared.length);
  // The contrast is computed on the shared items only (paired), and its verdict names their count.
  const contrast = record.analysis.contrasts.itt.pooled.contrasts[0];
  assert.equal(contrast.pairing.mode, "paired");
  assert.equal(contrast.pairing.shared, shared.length);
  assert.equal(contrast.rate.n, shared.length, "the condition's rate on the shared items");
  assert.equal(contrast.referenceRate.n, shared.length, "the reference's rate on the shared items");
  const onShared = (r: Map<string, boolean>) => shared.filter((id) => r.get(id)).length / shared.length;
  assert.ok(
    Math.abs(contrast.riskDifference.estimate - (onShared(rb) - onShared(ra))) < 1e-12,
    "RD = the difference of the two rates on the shared items",
  );
  assert.equal(contrast.verdict, `not interpretable: ${shared.length} cases`);
  assert.equal(contrast.withheld, `${shared.length} cases`);
  // Rates use every item of each model (unpaired): n = each log's sample count.
  const cells = record.analysis.rates.filter(
    (r: { model: string; benchmark: string }) => r.benchmark === "all" && r.model === "all",
  );
  assert.deepEqual(
    cells.map((c: { condition: string; n: number }) => [c.condition, c.n]),
    [
      [a.eval.model, a.samples.length],
      [b.eval.model, b.samples.length],
    ],
  );

  const report = runCli(["report", study]);
  assert.equal(report.status, 0, report.stderr);
});
