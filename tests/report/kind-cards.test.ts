/// <reference lib="dom" />
/**
 * Each study kind's outputs lead with its own card: `analyze` writes the card files of the
 * study's kinds only (a comparison's scorecard.*, a grid's grid-card.*, an audit's audit-gate.*,
 * an agent study's agent-card.*), and report.html opens with the integrity verdict in one line
 * and the kind's card, within the first screen (1400 x 900) in headless Chromium (skipped with a
 * message when /usr/bin/chromium is absent). No report of another kind carries the ScaffoldSafety
 * scorecard's no-composite note or its trend (H4) note, and no report is wider than the viewport
 * (a wide table scrolls in its own box); the audit's per-cell rows are folded. The studies are the quickstarts, cut down
 * to a few models, items and levels to keep the test short.
 */
import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { parse, stringify } from "yaml";
import { analyzeDirectory } from "../../src/analysis/core/directory.js";
import { analysisRecord, writeAnalysisRecord } from "../../src/analysis/core/record.js";
import type { StudyKind } from "../../src/contracts/study-kind.js";
import { writeReport } from "../../src/report/index.js";
import { runStudy } from "../../src/run/execute/run-study.js";
import { openStore } from "../../src/run/store/open.js";
import {
  before,
  CHROMIUM,
  describeNeeding,
  it,
  needsBubblewrap,
  needsChromium,
  needsSpecData,
} from "../helpers/prerequisites.js";

const EXAMPLES = join(import.meta.dirname, "..", "..", "examples");

/** The parts of a quickstart's spec the test cuts down. */
interface Bench {
  items?: unknown[];
  source?: string;
  sample?: unknown;
  exemplars?: { source?: string };
}
interface Spec {
  models: { id: string }[];
  benchmarks: Bench[];
  conditions: { facets: Record<string, unknown[]>; exclude?: unknown };
  scoring?: { per_benchmark?: unknown };
  attempts?: number;
  agents?: { web?: { folder?: string; allow_outside?: boolean } };
}

interface Study {
  kind: StudyKind;
  spec: string;
  /** Cuts the quickstart down (models, items, levels). */
  shrink(spec: Spec): void;
  /** The card files the kind writes. */
  cards: string[];
  needs?: () => string | false;
}

const STUDIES: Study[] = [
  {
    kind: "comparison",
    spec: "quickstart.yaml",
    shrink: (spec) => {
      spec.models = spec.models.slice(0, 2);
      spec.benchmarks[0].items = spec.benchmarks[0].items?.slice(0, 12);
      spec.conditions.facets.format = ["mc"];
    },
    cards: ["scorecard.json", "scorecard.md"],
  },
  {
    kind: "grid",
    spec: "grid-quickstart.yaml",
    shrink: (spec) => {
      spec.models = spec.models.slice(0, 2);
      spec.benchmarks = spec.benchmarks.slice(0, 2).map((b: Bench) => ({ ...b, sample: { n: 6, seed: 42 } }));
      spec.conditions.facets = {
        template: ["T1", "T4"],
        decoding: ["greedy"],
        few_shot: [0, 3],
        scoring_path: ["free_form", "logprob"],
      };
      delete spec.conditions.exclude;
      delete spec.scoring?.per_benchmark;
    },
    cards: ["grid-card.json", "grid-card.md"],
    needs: () => needsSpecData(join(EXAMPLES, "grid-quickstart.yaml")),
  },
  {
    kind: "audit",
    spec: "audit-quickstart.yaml",
    shrink: (spec) => {
      spec.models = spec.models.filter((m: { id: string }) => m.id === "sim-b");
      spec.benchmarks = spec.benchmarks.map((b: Bench) => ({ ...b, items: b.items?.slice(0, 10) }));
    },
    cards: ["audit-gate.json", "audit-gate.md"],
  },
  {
    kind: "agents",
    spec: "agents-quickstart.yaml",
    shrink: (spec) => {
      spec.models = spec.models.slice(0, 2);
      spec.attempts = 1;
    },
    cards: ["agent-card.json", "agent-card.md"],
    needs: needsBubblewrap,
  },
];

const ALL_CARDS = STUDIES.flatMap((s) => s.cards);

/** A spec's relative source as an absolute path, so the spec can be written anywhere. */
function absolute(spec: Spec): void {
  const fix = (source: string) =>
    typeof source === "string" && !/^[a-z]+:/i.test(source) ? resolve(EXAMPLES, source) : source;
  for (const b of spec.benchmarks) {
    if (b.source) b.source = fix(b.source);
    if (b.exemplars?.source) b.exemplars.source = fix(b.exemplars.source);
  }
  // The example's own offline library, served from where the example keeps it.
  if (spec.agents?.web?.folder)
    spec.agents.web = { ...spec.agents.web, folder: fix(spec.agents.web.folder), allow_outside: true };
}

/** Runs the cut-down quickstart, analyses it and writes its report; returns the folder. */
async function studyReport(study: Study): Promise<{
  dir: string;
  kinds: readonly StudyKind[];
  written: string[];
  models: number;
}> {
  const spec = parse(readFileSync(join(EXAMPLES, study.spec), "utf8")) as Spec;
  study.shrink(spec);
  absolute(spec);
  const dir = mkdtempSync(join(tmpdir(), `parallax-kind-${study.kind}-`));
  const specPath = join(dir, study.spec);
  writeFileSync(specPath, stringify(spec));
  const outDir = join(dir, "out");
  await runStudy({ specPath, outDir, env: {} });
  const store = await openStore(outDir);
  try {
    const run = (await store.getRun())!;
    const outcome = await analyzeDirectory(outDir, store, run);
    const record = analysisRecord(outcome);
    const written = writeAnalysisRecord(outDir, record).map((p) => basename(p));
    await writeReport({ outcome, card: record.scorecard }, { store, run }, join(outDir, "report.html"));
    const kinds = outcome.analysis.meta.selection?.kinds ?? [];
    return { dir: outDir, kinds, written, models: spec.models.length };
  } finally {
    await store.close();
  }
}

for (const study of STUDIES) {
  describeNeeding(study.needs?.(), `the ${study.kind} study's outputs lead with its card`, () => {
    let out: Awaited<ReturnType<typeof studyReport>>;
    before(async () => {
      out = await studyReport(study);
    });

    it("is of its kind and writes its card files, no other kind's", () => {
      assert.deepEqual(out.kinds, [study.kind], `the cut-down ${study.spec} is a ${study.kind} study`);
      const files = readdirSync(out.dir);
      for (const card of study.cards) assert.ok(files.includes(card), `${card} written: ${files.join(", ")}`);
      for (const other of ALL_CARDS.filter((c) => !study.cards.includes(c)))
        assert.ok(!files.includes(other), `${other} is another kind's card, not written: ${files.join(", ")}`);
      assert.ok(out.written.includes("analysis.json"), `analysis.json among ${out.written.join(", ")}`);
    });

    it("prints no other kind's notes and counts its models right", () => {
      const html = readFileSync(join(out.dir, "report.html"), "utf8");
      assert.ok(html.includes('class="integrity-verdict'), "the integrity verdict line is in the report");
      if (study.kind !== "comparison") {
        assert.ok(!html.includes("trend (H4): left out"), "no ScaffoldSafety trend note");
        assert.ok(!html.includes("No composite index"), "no Scaffold Safety Scorecard note");
        assert.ok(!html.includes("Scaffold Safety Scorecard"), "no Scaffold Safety Scorecard");
      }
      const models = `${out.models} model${out.models === 1 ? "" : "s"}`;
      assert.ok(html.includes(` trials, ${models}, `), `the header counts the study's ${models}`);
    });

    it("shows the integrity verdict and the kind's card on the first screen (Chromium, 1400 x 900)", {
      skip: needsChromium() || false,
    }, async () => {
      const { chromium } = await import("playwright-core");
      const browser = await chromium.launch({
        executablePath: CHROMIUM,
        args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
      });
      try {
        const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
        await page.goto(pathToFileURL(join(out.dir, "report.html")).href);
        const card = await page.locator(`section.kind-card[data-kind="${study.kind}"]`).first().boundingBox();
        assert.ok(card, `the ${study.kind} card is in the report`);
        assert.ok(card.y < 900, `the ${study.kind} card starts on the first screen (top ${card.y})`);
        const verdict = await page.locator("p.integrity-verdict").boundingBox();
        assert.ok(verdict && verdict.y + verdict.height < 900, "the integrity verdict line is on the first screen");
        assert.ok(verdict.height < 60, `the integrity verdict is one line (${verdict.height} px)`);
        const first = await page.evaluate(() => document.querySelector("main h2")?.closest("section")?.dataset.kind);
        assert.equal(first, study.kind, `the first section is the ${study.kind} card`);
        // A wide table scrolls inside its own box: the page never scrolls sideways.
        const width = await page.evaluate(() => document.documentElement.scrollWidth);
        assert.ok(width <= 1400, `the ${study.kind} report is no wider than the viewport (${width} px)`);
        if (study.kind === "audit") {
          const gates = await page.locator("table.audit-gates").boundingBox();
          assert.ok(gates && gates.y < 900, `the audit's gate table is on the first screen (top ${gates?.y})`);
          const folded = await page.evaluate(() =>
            Array.from(document.querySelectorAll("details.audit-rows")).map((d) => (d as HTMLDetailsElement).open),
          );
          assert.ok(folded.length >= 3 && folded.every((open) => !open), `per-cell rows folded: ${folded}`);
        }
      } finally {
        await browser.close();
      }
    });
  });
}
