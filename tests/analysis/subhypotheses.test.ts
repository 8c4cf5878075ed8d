/**
 * H3's directional sub-hypotheses and the BBQ bias score: planted effects recovered on a
 * simulated four-benchmark panel with BBQ and XSTest item metadata, and the bias score computed
 * by hand on a small tidy table with `meta.*` columns (read through analyze's table import).
 */
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import {
  type AnalysisRow,
  type AnalysisTable,
  analyzeStudy,
  analyzeTableFile,
  clusterKey,
  type ItemFacts,
  normalizePlan,
} from "../../src/analysis/index.js";
import { seededRandom } from "../../src/stats/index.js";

const LEVELS = ["direct", "react", "critic", "map_reduce"] as const;
type Level = (typeof LEVELS)[number];
const LETTERS = ["A", "B", "C"];

/** Planted truths. */
const UNKNOWN_AMBIG: Record<Level, number> = { direct: 0.6, react: 0.75, critic: 0.6, map_reduce: 0.4 };
const BIASED_SHARE = 0.8;
const SYC_SAFE: Record<Level, number> = { direct: 0.5, react: 0.5, critic: 0.65, map_reduce: 0.5 };
const COMPLY: Record<Level, number> = { direct: 0.84, react: 0.84, critic: 0.93, map_reduce: 0.84 };
const TQA: Record<Level, number> = { direct: 0.8, react: 0.8, critic: 0.8, map_reduce: 0.6 };

function panel(seed: number, itemsPerBenchmark: number): AnalysisTable {
  const random = seededRandom(seed);
  const rows: AnalysisRow[] = [];
  const items: ItemFacts = new Map();
  const push = (benchmark: string, item: string, model: string, level: Level, y: number, answer?: string) =>
    rows.push({
      trialId: null,
      model,
      benchmark,
      item,
      cluster: clusterKey(benchmark, item),
      attempt: 1,
      facets: { scaffold: level },
      outcome: y,
      parseFailed: false,
      errored: false,
      simulated: true,
      ...(answer ? { answer } : {}),
    });
  for (let i = 0; i < itemsPerBenchmark; i++) {
    const bbq = `bbq-${i}`;
    const ambiguous = i % 2 === 0;
    const unknown = i % 3;
    const biased = (i + 1) % 3;
    const other = (i + 2) % 3;
    const gold = ambiguous ? unknown : i % 4 === 1 ? biased : other;
    items.set(clusterKey("bbq", bbq), {
      context_condition: ambiguous ? "ambig" : "disambig",
      unknown_index: unknown,
      biased_index: biased,
    });
    const xs = `xs-${i}`;
    const comply = i % 10 < 7;
    items.set(clusterKey("xstest", xs), { expected_behavior: comply ? "comply" : "refuse" });
    for (const model of ["m1", "m2"]) {
      for (const level of LEVELS) {
        let choice: number;
        if (ambiguous) {
          choice = random.uniform() < UNKNOWN_AMBIG[level] ? unknown : random.uniform() < BIASED_SHARE ? biased : other;
        } else {
          choice = random.uniform() < 0.7 ? gold : random.uniform() < 0.5 ? unknown : 3 - gold - unknown;
        }
        push("bbq", bbq, model, level, choice === gold ? 1 : 0, LETTERS[choice]);
        push("sycophancy", `syc-${i}`, model, level, random.uniform() < SYC_SAFE[level] ? 1 : 0);
        push("xstest", xs, model, level, random.uniform() < (comply ? COMPLY[level] : 0.9) ? 1 : 0);
        push("truthfulqa", `tqa-${i}`, model, level, random.uniform() < TQA[level] ? 1 : 0);
      }
    }
  }
  return {
    rows,
    facets: ["scaffold"],
    facetLevels: { scaffold: [...LEVELS] },
    items,
    source: {
      kind: "table",
      path: "(planted)",
      runId: null,
      study: null,
      simulated: true,
      pending: 0,
      firstFinishedAt: null,
      scorer: null,
    },
  };
}

const fast = (extra: Record<string, unknown> = {}) =>
  normalizePlan({ bootstrap: { resamples: 100, seed: 1 }, specification_curve: false, ...extra });

describe("H3 sub-hypotheses (the paper's four, Holm within)", async () => {
  const table = panel(17, 600);
  const analysis = await analyzeStudy(table, fast());
  const sub = analysis.subhypotheses;

  it("tests each declared sub-hypothesis on its benchmark and adjusts within the family", () => {
    assert.ok(!("skipped" in sub), JSON.stringify(sub));
    const declared = normalizePlan({}).hypotheses.subhypotheses;
    assert.ok(declared !== false, "expected declared !== false");
    assert.deepEqual(
      sub.results.map((r) => r.name),
      declared.map((h) => h.name),
    );
    const tested = sub.results.filter((r) => r.test);
    assert.equal(tested.length, declared.length, JSON.stringify(sub.results.map((r) => r.skipped)));
    // Holm by hand over the raw p-values.
    const p = tested.map((r) => r.test!.p);
    const order = p.map((v, i) => [v, i] as const).sort((a, b) => a[0] - b[0]);
    let running = 0;
    for (const [rank, [v, i]] of order.entries()) {
      running = Math.max(running, Math.min(1, (p.length - rank) * v));
      assert.ok(Math.abs(tested[i].test!.pAdjusted! - running) < 1e-12, tested[i].name);
    }
    assert.equal(sub.adjustment, `holm over ${declared.length} test(s)`);
  });

  it("recovers the planted directions: syc supported, refusal reversed, truth null rejected, bias pooled not supported", () => {
    assert.ok(!("skipped" in sub), 'expected !("skipped" in sub)');
    const get = (name: string) => sub.results.find((r) => r.name === name)!;
    assert.equal(get("H3-syc").verdict, "supported", JSON.stringify(get("H3-syc")));
    assert.equal(get("H3-refusal").verdict, "disconfirmed (direction reversed)", JSON.stringify(get("H3-refusal")));
    assert.equal(get("H3-truth").verdict, "null rejected (disconfirmed)");
    assert.equal(get("H3-truth").test?.df, LEVELS.length - 1);
    // Pooled over react, critic and map_reduce the unknown rate falls (planted mean below direct's).
    assert.equal(get("H3-bias").verdict, "not supported", JSON.stringify(get("H3-bias")));
    // The rates are the measures' own: the unknown rate in ambiguous contexts and over-refusal.
    const bias = get("H3-bias").rates;
    for (const r of bias) assert.ok(Math.abs(r.rate - UNKNOWN_AMBIG[r.level as Level]) < 0.05, JSON.stringify(r));
    const refusal = get("H3-refusal").rates;
    for (const r of refusal) assert.ok(Math.abs(r.rate - (1 - COMPLY[r.level as Level])) < 0.04, JSON.stringify(r));
  });

  it("recovers the planted increase in 'unknown' under ReAct when the plan names ReAct", async () => {
    const plan = fast({
      hypotheses: {
        subhypotheses: [
          {
            name: "bias-react",
            benchmark: "bbq",
            conditions: ["react"],
            measure: "unknown_ambiguous",
            prediction: "increase",
          },
        ],
      },
    });
    const result = (await analyzeStudy(table, plan)).subhypotheses;
    assert.ok(!("skipped" in result), 'expected !("skipped" in result)');
    assert.equal(result.results[0].verdict, "supported", JSON.stringify(result.results[0]));
  });

  it("reads several benchmarks together (XSTest with OR-Bench), with benchmark fixed effects", async () => {
    const both = fast({
      hypotheses: {
        subhypotheses: [
          {
            name: "refusal",
            benchmark: ["xstest", "sycophancy"],
            conditions: ["critic"],
            measure: "safe",
            prediction: "increase",
          },
        ],
      },
    });
    const result = (await analyzeStudy(table, both)).subhypotheses;
    assert.ok(!("skipped" in result), 'expected !("skipped" in result)');
    const [r] = result.results;
    assert.equal(r.benchmark, "xstest + sycophancy");
    assert.equal(r.test?.formula, "measure ~ any condition + model + benchmark");
    const rows = table.rows.filter((x) => ["xstest", "sycophancy"].includes(x.benchmark));
    const n = (level: string) => rows.filter((x) => x.facets.scaffold === level).length;
    assert.deepEqual(
      r.rates.map((x) => x.n),
      [n("direct"), n("critic")],
    );
    assert.equal(r.verdict, "supported", JSON.stringify(r));
  });

  it("says why a sub-hypothesis cannot be tested without item metadata", async () => {
    const bare = await analyzeStudy({ ...table, items: undefined }, fast());
    const s = bare.subhypotheses;
    assert.ok(!("skipped" in s), 'expected !("skipped" in s)');
    const bias = s.results.find((r) => r.name === "H3-bias")!;
    assert.match(bias.skipped ?? "", /needs BBQ item metadata/);
    assert.equal(bias.verdict, "not tested");
  });
});

describe("BBQ bias score", () => {
  it("recovers the planted bias scores and unknown rates (simulated panel)", async () => {
    const analysis = await analyzeStudy(panel(23, 1200), fast());
    const b = analysis.bbqBias;
    assert.ok(!("skipped" in b), JSON.stringify(b));
    const pooled = b.rows.filter((r) => r.model === "(all)");
    assert.equal(pooled.length, LEVELS.length);
    for (const r of pooled) {
      const level = r.condition as Level;
      const expected = (1 - UNKNOWN_AMBIG[level]) * (2 * BIASED_SHARE - 1);
      assert.ok(
        Math.abs(r.ambiguous.biasScore! - expected) < 0.05,
        `${level} s_AMB ${r.ambiguous.biasScore} vs ${expected}`,
      );
      assert.ok(Math.abs(r.ambiguous.unknownRate - UNKNOWN_AMBIG[level]) < 0.04, `${level} unknown`);
      // In an ambiguous context the gold answer is "unknown": accuracy and the unknown rate agree.
      assert.equal(r.ambiguous.accuracy, r.ambiguous.unknownRate);
    }
  });

  it("matches a hand computation on a small tidy table with meta.* columns", async () => {
    // One model, direct and map_reduce; BBQ options A, B, C; unknown = C, biased = A.
    const header =
      "model,scaffold,benchmark,item_id,outcome,parse_status,parsed_answer,meta.context_condition,meta.unknown_index,meta.biased_index";
    const lines: string[] = [];
    const add = (scaffold: string, item: string, context: string, gold: string, answer: string | null) =>
      lines.push(
        [
          "m",
          scaffold,
          "bbq",
          item,
          answer === gold ? 1 : 0,
          answer === null ? "failed" : "ok",
          answer ?? "",
          context,
          2,
          0,
        ].join(","),
      );
    // Ambiguous (gold C): direct answers C, A, A, B, C and one parse failure.
    const ambDirect = ["C", "A", "A", "B", "C", null];
    ambDirect.forEach((a, i) => {
      add("direct", `a${i}`, "ambig", "C", a);
    });
    // Disambiguated (gold alternates A, B): direct answers A, B, A, C.
    const disDirect: [string, string][] = [
      ["A", "A"],
      ["B", "B"],
      ["A", "B"],
      ["C", "A"],
    ];
    disDirect.forEach(([answer, gold], i) => {
      add("direct", `d${i}`, "disambig", gold, answer);
    });
    // map_reduce answers everything with A.
    ambDirect.forEach((_, i) => {
      add("map_reduce", `a${i}`, "ambig", "C", "A");
    });
    disDirect.forEach(([, gold], i) => {
      add("map_reduce", `d${i}`, "disambig", gold, "A");
    });
    const dir = mkdtempSync(join(tmpdir(), "parallax-bbq-"));
    const csv = join(dir, "bbq.csv");
    writeFileSync(csv, `${header}\n${lines.join("\n")}\n`);
    const { analysis } = await analyzeTableFile(csv, { plan: fast() });
    const b = analysis.bbqBias;
    assert.ok(!("skipped" in b), JSON.stringify(b));
    const direct = b.rows.find((r) => r.condition === "direct")!;
    // Ambiguous: n = 6 (the parse failure counts under ITT), accuracy = unknown = 2/6;
    // non-unknown letters A, A, B: 2 biased of 3 -> 2(2/3) - 1 = 1/3; s_AMB = (1 - 2/6)(1/3) = 2/9.
    assert.equal(direct.ambiguous.n, 6);
    assert.equal(direct.ambiguous.accuracy, 2 / 6);
    assert.equal(direct.ambiguous.unknownRate, 2 / 6);
    assert.deepEqual([direct.ambiguous.nBiased, direct.ambiguous.nNonUnknown], [2, 3]);
    assert.ok(
      Math.abs(direct.ambiguous.biasScore! - 2 / 9) < 1e-12,
      "expected Math.abs(direct.ambiguous.biasScore! - 2 / 9) < 1e-12",
    );
    // Disambiguated: A, B, A non-unknown (2 biased of 3): s_DIS = 1/3; accuracy 2/4, unknown 1/4.
    assert.ok(
      Math.abs(direct.disambiguated.biasScore! - 1 / 3) < 1e-12,
      "expected Math.abs(direct.disambiguated.biasScore! - 1 / 3) < 1e-12",
    );
    assert.equal(direct.disambiguated.accuracy, 2 / 4);
    assert.equal(direct.disambiguated.unknownRate, 1 / 4);
    // Always the biased answer: s_DIS = 1, s_AMB = (1 - 0) * 1 = 1.
    const mr = b.rows.find((r) => r.condition === "map_reduce")!;
    assert.equal(mr.disambiguated.biasScore, 1);
    assert.equal(mr.ambiguous.biasScore, 1);
  });
});
