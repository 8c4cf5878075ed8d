/**
 * The report's audit section: rendered from the analysis result, every prompt escaped, the diff of
 * the original vs perturbed prompt marked with <del>/<ins>, no script.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { perturbationAudit } from "../../src/analysis/audit/audit-analysis.js";
import { normalizePlan } from "../../src/analysis/core/plan.js";
import type { AnalysisContext } from "../../src/analysis/core/registry.js";
import { render } from "../../src/report/html.js";
import { diffView } from "../../src/report/sections/audit/audit.js";
import "../../src/report/sections/index.js";
import { type ReportContext, reportSections } from "../../src/report/sections/registry.js";
import { build } from "../helpers/audit-rows.js";

test("the word diff escapes both prompts and marks what changed", () => {
  const html = render(diffView("Is <script>x</script> true?", "Is <script>x</script> false?"));
  assert.ok(!html.includes("<script>"), html);
  assert.match(html, /&lt;script&gt;/);
  assert.match(html, /<del>true<\/del><ins>false<\/ins>\?/);
  assert.match(render(diffView("same", "same")), /identical bytes/);
});

test("the audit section shows every cell's status, gates and the sampled diff, escaped, with no script", () => {
  const { rows, facts } = build();
  const audit = perturbationAudit({
    table: { rows },
    plan: normalizePlan({ audit: { resamples: 200 } }),
    integrityFacts: facts,
  } as unknown as AnalysisContext);
  const section = reportSections().find((s) => s.name === "audit")!;
  const html = render(section.render({ analysis: { audit } } as unknown as ReportContext));
  for (const benchmark of ["selective", "nonselective", "noop"]) assert.match(html, new RegExp(`m × ${benchmark}`));
  assert.match(html, /ineligible \(F1\)/);
  assert.match(html, /selective/);
  assert.match(html, /<ins>/);
  assert.match(html, /&lt;b&gt;2 \+ 2&lt;\/b&gt;/);
  assert.ok(!/<script/i.test(html), "expected !/<script/i.test(html)");
});

test("each audit cell cites the self-audit chronology entries that touched it (Box 1)", () => {
  const { rows, facts } = build();
  const audit = perturbationAudit({
    table: { rows },
    plan: normalizePlan({ audit: { resamples: 100 } }),
    integrityFacts: facts,
  } as unknown as AnalysisContext);
  const entry = {
    id: "F1a",
    failure_class: "F1",
    discovered: { date: "2026-04-20", how: "no-op rate 100% on the log-prob path" },
    affected_cells: [{ model: "m", benchmark: "noop" }],
    symptom: "format delta 0",
    provenance: "inherited",
    fix: { change: "the prompt builder reads the label style", regression_test: "t.test.ts" },
    delta: [{ model: "m", benchmark: "noop", statistic: "CSR", before: 9.5, after: 1.2 }],
    status: "FIXED",
  };
  const methodology = { chronology: { file: "c.jsonl", entries: [entry], totals: {} } };
  const section = reportSections().find((s) => s.name === "audit")!;
  const html = render(section.render({ analysis: { audit }, methodology } as unknown as ReportContext));
  // The citations sit in each cell's full row, folded below the gate summary.
  const folded = html.slice(html.indexOf('<details class="audit-rows">'));
  const rowOf = (benchmark: string) => folded.split("<tr>").find((r) => r.includes(`<td>m × ${benchmark} ×`)) ?? "";
  assert.match(rowOf("noop"), /href="#chronology-F1a"/);
  assert.doesNotMatch(rowOf("selective"), /chronology-F1a/);
});
