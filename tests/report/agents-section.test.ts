/// <reference lib="dom" />
/**
 * The report's agent section on a constructed agent study: every table and the Pareto frontier
 * chart (log x axis) render, and hostile model and scaffold names come out escaped.
 */
import assert from "node:assert/strict";
import { describe } from "node:test";
import { pathToFileURL } from "node:url";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  analysisRecord,
  analyzeStudy,
  analyzeTableFile,
  normalizePlan,
  readAnalysisRecord,
  writeAnalysisRecord,
} from "../../src/analysis/index.js";
import { type ReportContext, reportSections } from "../../src/report/index.js";
import { page, render } from "../../src/report/html.js";
import { leveledAgentTable } from "../analysis/agents-helpers.js";
import { CHROMIUM, describeNeeding, it, needsChromium } from "../helpers/prerequisites.js";

const HOSTILE_MODEL = '<img src=x onerror="alert(1)">';
const HOSTILE_SCAFFOLD = "<b>plan&exec</b>";

async function section(): Promise<string> {
  const scaffolds = ["react", HOSTILE_SCAFFOLD];
  const table = leveledAgentTable(
    { [HOSTILE_MODEL]: { react: 0.4, [HOSTILE_SCAFFOLD]: 0.7 }, safe: { react: 0.6, [HOSTILE_SCAFFOLD]: 0.65 } },
    scaffolds,
  );
  const analysis = await analyzeStudy(
    table,
    normalizePlan({
      reference: { scaffold: "react" },
      specification_curve: false,
      agents: { resamples: 200, tiers: ["safe", HOSTILE_MODEL] },
    }),
  );
  const agents = reportSections().find((s) => s.name === "agents");
  assert.ok(agents, "the agents section is registered");
  return render(agents.render({ analysis } as unknown as ReportContext));
}

describe("report section: agent scaffolds", () => {
  it('reads "n/a: no prices" for cost per correct and the frontier when no model has prices', async () => {
    const table = leveledAgentTable({ a: { react: 0.4, par: 0.7 }, b: { react: 0.6, par: 0.65 } }, ["react", "par"]);
    for (const row of table.rows) if (row.agent) row.agent.costUsd = 0;
    const analysis = await analyzeStudy(
      table,
      normalizePlan({ reference: { scaffold: "react" }, specification_curve: false, agents: { resamples: 100 } }),
    );
    const agents = reportSections().find((s) => s.name === "agents");
    assert.ok(agents, "the agents section is registered");
    const html = render(agents.render({ analysis } as unknown as ReportContext));
    assert.ok(html.includes("n/a: no prices"), "the cost table and the frontier say n/a: no prices");
    assert.ok(!html.includes("$0.000"), "no cost reads $0");
    assert.ok(html.includes("acc. overall = correct / attempts"), "the two accuracies' reason is given");
  });

  it("renders the tables and the Pareto chart with escaped names", async () => {
    const html = await section();
    assert.match(html, /<h2 id="agents">Agent scaffolds<\/h2>/);
    for (const heading of [
      "Outcomes",
      "Scaffold gap",
      "GLMM",
      "difference of differences",
      "Behavioural",
      "Cost per correct",
      "Tier ladder",
    ])
      assert.ok(html.includes(heading), heading);
    assert.equal((html.match(/<figure>/g) ?? []).length, 2, "one Pareto chart per level");
    assert.equal((html.match(/<svg viewBox="0 0 960 420"/g) ?? []).length, 2, "each figure holds its chart");
    assert.match(html, /realized cost per correct \(USD, log scale\)/);
    assert.ok(!html.includes(HOSTILE_MODEL), "the hostile model name never appears raw");
    assert.ok(!html.includes("<b>plan"), "the hostile scaffold name never appears raw");
    assert.ok(html.includes("&lt;img src=x onerror="), "the model name is shown, escaped");
    assert.ok(html.includes("&lt;b&gt;plan&amp;exec&lt;/b&gt;"), "the scaffold name is shown, escaped");
  });

  it("renders from the stored record of an imported CSV with agent columns (JSON and back, zod-checked)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "parallax-agents-record-"));
    const table = leveledAgentTable({ a: { react: 0.4, pe: 0.7 }, b: { react: 0.6, pe: 0.65 } }, ["react", "pe"]);
    const csv = [
      "model,benchmark,item_id,attempt,scaffold,status,outcome,cost_usd,tool_calls,output_tokens,agent_flags,meta.level,meta.file_name",
      ...table.rows.map((r) => {
        const meta = table.items!.get(r.cluster)!;
        return [
          r.model,
          r.benchmark,
          r.item,
          r.attempt,
          r.facets.scaffold,
          "finished",
          r.outcome,
          r.agent!.costUsd,
          r.agent!.toolCalls,
          r.agent!.outputTokens,
          "",
          meta.level,
          meta.file_name,
        ].join(",");
      }),
    ].join("\n");
    writeFileSync(join(dir, "agents.csv"), csv);
    const plan = normalizePlan({
      reference: { scaffold: "react" },
      specification_curve: false,
      agents: { resamples: 200 },
    });
    const outcome = await analyzeTableFile(join(dir, "agents.csv"), { plan });
    const [path] = writeAnalysisRecord(dir, analysisRecord(outcome));
    const record = readAnalysisRecord(path, dir);
    const agents = reportSections().find((s) => s.name === "agents")!;
    const fresh = render(agents.render({ analysis: outcome.analysis } as unknown as ReportContext));
    assert.equal(render(agents.render({ analysis: record.analysis } as unknown as ReportContext)), fresh);
    const stored = record.analysis.agents;
    assert.ok(stored && !("skipped" in stored), 'expected stored && !("skipped" in stored)');
    assert.deepEqual(stored.levels, ["1", "2"]);
    assert.ok(stored.slices[0].dod.length > 0, "attachments read from meta.file_name");
  });

  it("says why when the study has no agent rows", () => {
    const agents = reportSections().find((s) => s.name === "agents")!;
    const html = render(
      agents.render({ analysis: { agents: { skipped: "no rows <x>" } } } as unknown as ReportContext),
    );
    assert.match(html, /Not computed: no rows &lt;x&gt;/);
  });
});

describeNeeding(needsChromium(), "the Pareto chart in headless Chromium", () => {
  it("keeps every label and point inside the chart, with distinct dollar ticks on the log axis", async () => {
    const path = join(mkdtempSync(join(tmpdir(), "parallax-pareto-")), "agents.html");
    writeFileSync(path, page("agents", { html: await section() }));
    const { chromium } = await import("playwright-core");
    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run"],
    });
    try {
      const tab = await browser.newPage();
      await tab.goto(pathToFileURL(path).href);
      const found = await tab.$$eval('figure svg[viewBox="0 0 960 420"]', (svgs) =>
        svgs.map((svg) => {
          const box = svg.getBoundingClientRect();
          const outside: string[] = [];
          for (const e of [
            ...Array.from(svg.querySelectorAll("text")),
            ...Array.from(svg.querySelectorAll('g[aria-label="dot"] > *')),
          ]) {
            const b = e.getBoundingClientRect();
            if (b.width === 0) continue;
            if (b.left < box.left - 1 || b.right > box.right + 1 || b.top < box.top - 1 || b.bottom > box.bottom + 1)
              outside.push(e.textContent || e.tagName);
          }
          const xTicks = Array.from(svg.querySelectorAll('g[aria-label="x-axis tick label"] text')).map(
            (t) => t.textContent ?? "",
          );
          const dots = svg.querySelectorAll('g[aria-label="dot"] > *').length;
          return { outside, xTicks, dots, width: box.width };
        }),
      );
      assert.equal(found.length, 2);
      for (const chart of found) {
        assert.ok(chart.width > 100, "the chart has a size");
        assert.deepEqual(chart.outside, [], "nothing outside the chart");
        assert.equal(chart.dots, 4, "one point per model x scaffold cell");
        assert.ok(chart.xTicks.length >= 2 && chart.xTicks.every((t) => t.startsWith("$")), chart.xTicks.join(" | "));
        assert.equal(new Set(chart.xTicks).size, chart.xTicks.length, "no repeated tick label");
      }
    } finally {
      await browser.close();
    }
  });
});
