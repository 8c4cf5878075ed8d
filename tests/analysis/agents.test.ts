/**
 * The agent analyses (GAIA scaffold comparison, App. D-O) on constructed tables: buckets that sum
 * to the attempts, the three slices, the scaffold gap's CI against a bootstrap written here
 * independently on the same question draws, the difference of differences and cost per correct
 * computed by hand, planted scaffold x model effects recovered by the GLMM likelihood-ratio test,
 * and the agent columns of a tidy table.
 */
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import {
  agentsAnalysis,
  costPerCorrectText,
  frontierText,
  NO_PRICES,
} from "../../src/analysis/agents/agents-analysis.js";
import { type PresentedAnalysis, registeredAnalyses } from "../../src/analysis/core/registry.js";
import { dodReading, sliceLevelEstimates } from "../../src/analysis/agents/estimates.js";
import { scaffoldModelGlmm } from "../../src/analysis/agents/glmm.js";
import { cellOutcomes } from "../../src/analysis/agents/outcomes.js";
import { agentUnits, OUTCOME_BUCKETS, sliceUnits } from "../../src/analysis/agents/units.js";
import { analyzeStudy, clusterKey, formatSummary, normalizePlan, readTidyTable } from "../../src/analysis/index.js";
import { InputError } from "../../src/core/errors.js";
import { RandomStream } from "../../src/stats/index.js";
import {
  agentRow,
  agentTable,
  BENCHMARK,
  leveledAgentTable,
  plantedAgentUnits,
  type RowSpec,
  unit,
} from "./agents-helpers.js";

const plan = normalizePlan({ agents: { resamples: 1000 } }).agents;

describe("outcome buckets (App. D/E)", () => {
  // One cell holding every bucket, and one quarantined credit-exhaustion rejection.
  const specs: RowSpec[] = [
    { model: "m", scaffold: "s1", item: "q1", outcome: 1 },
    { model: "m", scaffold: "s1", item: "q2", outcome: 0 },
    { model: "m", scaffold: "s1", item: "q3", outcome: 0, parseFailed: true, agent: { flags: ["truncated"] } },
    {
      model: "m",
      scaffold: "s1",
      item: "q4",
      outcome: null,
      errored: true,
      agent: { failureBucket: "context_too_long" },
    },
    {
      model: "m",
      scaffold: "s1",
      item: "q5",
      outcome: null,
      errored: true,
      agent: { failureBucket: "content_filter" },
    },
    {
      model: "m",
      scaffold: "s1",
      item: "q6",
      outcome: null,
      errored: true,
      agent: { failureBucket: "provider_error", flags: ["pdf_page_limit"] },
    },
    {
      model: "m",
      scaffold: "s1",
      item: "q7",
      outcome: null,
      errored: true,
      agent: { failureBucket: "provider_error", flags: ["provider_serialisation_bug"] },
    },
    { model: "m", scaffold: "s1", item: "q8", outcome: null, errored: true, agent: { failureBucket: "rate_limit" } },
    {
      model: "m",
      scaffold: "s1",
      item: "q9",
      outcome: null,
      errored: true,
      agent: { flags: ["zero_token_rejection"] },
    },
  ];
  const rows = specs.map(agentRow);
  const { units, quarantined } = agentUnits(rows, "scaffold", undefined, plan);

  it("puts each unit in exactly one bucket, quarantines zero-token rejections, and the counts sum to the attempts", () => {
    const outcomes = cellOutcomes(units, quarantined.get(["m", "s1", "all"].join("\u0001")) ?? 0);
    assert.equal(outcomes.attempts, specs.length - 1);
    assert.equal(outcomes.quarantined, 1);
    for (const bucket of OUTCOME_BUCKETS) assert.ok(outcomes.buckets[bucket] >= 1, `bucket ${bucket} present`);
    const total = OUTCOME_BUCKETS.reduce((sum, b) => sum + outcomes.buckets[b], 0);
    assert.equal(total, outcomes.attempts);
    assert.deepEqual(
      units.map((u) => u.bucket),
      ["correct", "wrong", "wrong", "p2l", "cf", "pdf", "bug", "other"],
    );
    const completed = units.filter((u) => u.completed).length;
    assert.equal(outcomes.completed, completed);
    assert.equal(outcomes.errored, outcomes.attempts - completed);
    assert.equal(outcomes.accuracyOverall, 1 / outcomes.attempts);
    assert.equal(outcomes.accuracyCompleted, 1 / completed);
    assert.equal(outcomes.completionRate, completed / outcomes.attempts);
  });

  it("reads the American spelling of the serialisation-bug flag as the same flag", () => {
    const row = agentRow({
      model: "m",
      scaffold: "s1",
      item: "q1",
      outcome: 1,
      agent: { flags: ["provider_serialization_bug"].map((f) => f.replace("serialization", "serialisation")) },
    });
    assert.equal(agentUnits([row], "scaffold", undefined, plan).units[0].bucket, "bug");
  });
});

describe("slices", () => {
  // Two models x two scaffolds, questions q1-q3, two attempts each. q3 never completes under
  // (b, s2); one q1 unit of (a, s2) carries the serialisation-bug flag.
  const specs: RowSpec[] = [];
  for (const model of ["a", "b"])
    for (const scaffold of ["s1", "s2"])
      for (const item of ["q1", "q2", "q3"])
        for (const attempt of [1, 2]) {
          const never = model === "b" && scaffold === "s2" && item === "q3";
          const flagged = model === "a" && scaffold === "s2" && item === "q1" && attempt === 1;
          specs.push({
            model,
            scaffold,
            item,
            attempt,
            outcome: never || flagged ? null : attempt === 1 ? 1 : 0,
            errored: never || flagged,
            agent: flagged ? { flags: ["provider_serialisation_bug"] } : never ? { failureBucket: "timeout" } : {},
          });
        }
  const { units } = agentUnits(specs.map(agentRow), "scaffold", undefined, plan);

  it("primary keeps every unit, robust drops the flagged one, intersection drops the question a cell never completed", () => {
    assert.equal(sliceUnits(units, "primary", plan).length, 24);
    const robust = sliceUnits(units, "robust", plan);
    assert.equal(robust.length, 23);
    assert.ok(!robust.some((u) => u.agent.flags.length > 0), "expected !robust.some((u) => u.agent.flags.length > 0)");
    const intersection = sliceUnits(units, "intersection", plan);
    assert.equal(intersection.length, 16);
    assert.deepEqual([...new Set(intersection.map((u) => u.cluster))].sort(), [
      clusterKey(BENCHMARK, "q1"),
      clusterKey(BENCHMARK, "q2"),
    ]);
    // The flagged unit stays in the intersection (one completed unit of its cell is enough).
    assert.ok(
      intersection.some((u) => u.bucket === "bug"),
      'expected intersection.some((u) => u.bucket === "bug")',
    );
  });

  it("the robust slice's accuracy divides by the unflagged units only", () => {
    const cell = sliceUnits(units, "robust", plan).filter((u) => u.model === "a" && u.scaffold === "s2");
    const outcomes = cellOutcomes(cell, 0);
    assert.equal(outcomes.attempts, 5);
    assert.equal(outcomes.accuracyOverall, 2 / 5);
  });
});

describe("scaffold gap with shared resamples", () => {
  // A small table: 6 questions, 2 attempts, three scaffolds of one model, uneven accuracies.
  const pattern: Record<string, number[][]> = {
    s1: [
      [1, 1],
      [0, 1],
      [0, 0],
      [1, 0],
      [0, 0],
      [1, 1],
    ],
    s2: [
      [1, 0],
      [1, 1],
      [1, 1],
      [0, 0],
      [1, 0],
      [1, 1],
    ],
    s3: [
      [0, 0],
      [0, 1],
      [0, 0],
      [0, 0],
      [1, 0],
      [1, 0],
    ],
  };
  const scaffolds = Object.keys(pattern);
  const units = scaffolds.flatMap((s) =>
    pattern[s].flatMap((attempts, q) =>
      attempts.map((y) => unit({ model: "m", scaffold: s, cluster: `q${q + 1}`, correct: y === 1 })),
    ),
  );
  const B = 2000;
  const seed = 20260526;
  const estimates = sliceLevelEstimates(units, {
    models: ["m"],
    scaffolds,
    plan: { ...plan, resamples: B, seed },
    h4: {
      treatment: "s3",
      control: "s1",
    },
  });

  /** The bootstrap written out: the same documented draws, every statistic recomputed from the units. */
  function handBootstrap(): { gap: number; ci: [number, number]; pair12: [number, number] } {
    const clusters = [...new Set(units.map((u) => u.cluster))].sort();
    const streams = RandomStream.independentStreams(seed, Math.ceil(B / 1000));
    const draws = new Int32Array(clusters.length);
    const gaps: number[] = [];
    const pairs: number[] = [];
    const accuracy = (picked: string[], s: string) => {
      let correct = 0;
      let n = 0;
      for (const c of picked)
        for (const u of units)
          if (u.cluster === c && u.scaffold === s) {
            n++;
            correct += u.correct ? 1 : 0;
          }
      return correct / n;
    };
    for (let b = 0; b < B; b++) {
      streams[Math.floor(b / 1000)].fillDraws(draws, clusters.length);
      const picked = Array.from(draws, (k) => clusters[k]);
      const acc = scaffolds.map((s) => accuracy(picked, s));
      gaps.push(Math.max(...acc) - Math.min(...acc));
      pairs.push(acc[0] - acc[1]);
    }
    const type7 = (values: number[], q: number) => {
      const sorted = [...values].sort((x, y) => x - y);
      const h = (sorted.length - 1) * q;
      const lo = Math.floor(h);
      return sorted[lo] + (h - lo) * ((sorted[lo + 1] ?? sorted[lo]) - sorted[lo]);
    };
    const full = scaffolds.map((s) => accuracy(clusters, s));
    return {
      gap: Math.max(...full) - Math.min(...full),
      ci: [type7(gaps, 0.025), type7(gaps, 0.975)],
      pair12: [type7(pairs, 0.025), type7(pairs, 0.975)],
    };
  }

  it("matches a hand-written bootstrap that draws the questions once for all scaffolds", () => {
    const hand = handBootstrap();
    const gap = estimates.gaps[0];
    assert.ok(
      Math.abs((gap.gap.estimate ?? Number.NaN) - hand.gap) < 1e-12,
      "expected Math.abs((gap.gap.estimate ?? Number.NaN) - hand.gap) < 1e-12",
    );
    assert.ok(Math.abs(gap.gap.ci![0] - hand.ci[0]) < 1e-12, `${gap.gap.ci} vs ${hand.ci}`);
    assert.ok(Math.abs(gap.gap.ci![1] - hand.ci[1]) < 1e-12, `${gap.gap.ci} vs ${hand.ci}`);
    const pair = estimates.pairwise.find((p) => p.first === "s1" && p.second === "s2")!;
    assert.ok(
      Math.abs(pair.difference.ci![0] - hand.pair12[0]) < 1e-12,
      "expected Math.abs(pair.difference.ci![0] - hand.pair12[0]) < 1e-12",
    );
    assert.ok(
      Math.abs(pair.difference.ci![1] - hand.pair12[1]) < 1e-12,
      "expected Math.abs(pair.difference.ci![1] - hand.pair12[1]) < 1e-12",
    );
  });

  it("names the scaffolds at the max and the min, and lists every pair once", () => {
    const acc = (s: string) => pattern[s].flat().reduce((a, b) => a + b, 0) / 12;
    const order = [...scaffolds].sort((a, b) => acc(b) - acc(a));
    assert.equal(estimates.gaps[0].max, order[0]);
    assert.equal(estimates.gaps[0].min, order[2]);
    assert.deepEqual(
      estimates.pairwise.map((p) => `${p.first}-${p.second}`),
      ["s1-s2", "s1-s3", "s2-s3"],
    );
  });
});

describe("difference of differences and cost per correct", () => {
  // f1, f2: file questions; n1, n2: the rest. Two scaffolds, one model, one attempt each.
  const y: Record<string, Record<string, number>> = {
    s1: { f1: 0, f2: 1, n1: 1, n2: 1 },
    s3: { f1: 1, f2: 1, n1: 0, n2: 1 },
  };
  const cost: Record<string, Record<string, number>> = {
    s1: { f1: 0.5, f2: 0.25, n1: 0.125, n2: 0.5 },
    s3: { f1: 0.75, f2: 0.5, n1: 1, n2: 0.25 },
  };
  const units = Object.keys(y).flatMap((s) =>
    Object.keys(y[s]).map((q) =>
      unit({
        model: "m",
        scaffold: s,
        cluster: q,
        correct: y[s][q] === 1,
        document: q.startsWith("f"),
        anyFile: q.startsWith("f"),
        agent: { ...unit({ model: "m", scaffold: s, cluster: q }).agent, costUsd: cost[s][q] },
      }),
    ),
  );
  // One errored s3 unit on n2 with cost (realized counts it, happy-path does not).
  units.push(
    unit({
      model: "m",
      scaffold: "s3",
      cluster: "n2",
      correct: false,
      completed: false,
      bucket: "other",
      document: false,
      anyFile: false,
      agent: { ...unit({ model: "m", scaffold: "s3", cluster: "n2" }).agent, costUsd: 2 },
    }),
  );
  const estimates = sliceLevelEstimates(units, {
    models: ["m"],
    scaffolds: ["s1", "s3"],
    plan,
    h4: { treatment: "s3", control: "s1" },
  });

  it("computes (s3 - s1 on file tasks) - (s3 - s1 on the rest)", () => {
    const mean = (s: string, inside: boolean) => {
      const us = units.filter((u) => u.scaffold === s && u.document === inside);
      return us.filter((u) => u.correct).length / us.length;
    };
    const expected = mean("s3", true) - mean("s1", true) - (mean("s3", false) - mean("s1", false));
    const dod = estimates.dod.find((d) => d.subset === "documents" && d.h4)!;
    assert.equal(dod.fileQuestions, 2);
    assert.equal(dod.otherQuestions, 2);
    assert.ok(
      Math.abs((dod.dod.estimate ?? Number.NaN) - expected) < 1e-12,
      "expected Math.abs((dod.dod.estimate ?? Number.NaN) - expected) < 1e-12",
    );
    assert.equal(dod.reading, dodReading(dod.dod.ci));
  });

  it("reads a CI above zero as support, below as contradiction, across as inconclusive", () => {
    assert.equal(dodReading([0.01, 0.2]), "supports");
    assert.equal(dodReading([-0.3, -0.01]), "contradicts");
    assert.equal(dodReading([-0.1, 0.1]), "inconclusive");
    assert.equal(dodReading(null), null);
  });

  it("divides all spend by the correct units (realized) and completed spend by them (happy path)", () => {
    const s3 = estimates.cells.get("m\u0001s3")!;
    const correct = Object.values(y.s3).reduce((a, b) => a + b, 0);
    const completedSpend = Object.values(cost.s3).reduce((a, b) => a + b, 0);
    assert.equal(s3.cost.totalUsd, completedSpend + 2);
    assert.ok(
      Math.abs((s3.cost.realized.estimate ?? 0) - (completedSpend + 2) / correct) < 1e-12,
      "expected Math.abs((s3.cost.realized.estimate ?? 0) - (completedSpend + 2) / correct) < 1e-12",
    );
    assert.ok(
      Math.abs((s3.cost.happyPath.estimate ?? 0) - completedSpend / correct) < 1e-12,
      "expected Math.abs((s3.cost.happyPath.estimate ?? 0) - completedSpend / correct) < 1e-12",
    );
    const s1 = estimates.cells.get("m\u0001s1")!;
    assert.equal(s1.cost.realized.estimate, s1.cost.happyPath.estimate, "equal at 100% completion");
  });
});

describe("behavioural signatures", () => {
  it("averages tool calls over all units, working time over completed ones, and leaves recovery undefined without errors", () => {
    const base = (fields: Parameters<typeof unit>[0]) => unit(fields);
    const units = [
      base({ model: "m", scaffold: "s", cluster: "q1", correct: true }),
      base({ model: "m", scaffold: "s", cluster: "q2" }),
      base({ model: "m", scaffold: "s", cluster: "q3", completed: false, bucket: "other" }),
    ];
    units[0].agent = { ...units[0].agent, toolCalls: 4, workingSeconds: 10, toolErrorMidTrajectory: false };
    units[1].agent = { ...units[1].agent, toolCalls: 2, workingSeconds: 30 };
    units[2].agent = { ...units[2].agent, toolCalls: 9, workingSeconds: 500 };
    const cell = sliceLevelEstimates(units, {
      models: ["m"],
      scaffolds: ["s"],
      plan,
      h4: { treatment: "s", control: "s" },
    }).cells.get("m\u0001s")!;
    assert.equal(cell.behaviour.toolCalls.estimate, 5);
    assert.equal(cell.behaviour.workingSeconds.estimate, 20);
    assert.equal(cell.behaviour.recovery.estimate, null);
    assert.equal(cell.behaviour.recovery.withError, 0);

    units[1].agent = { ...units[1].agent, toolErrorMidTrajectory: true, recoveredAfterToolError: false };
    units[0].agent = { ...units[0].agent, toolErrorMidTrajectory: true, recoveredAfterToolError: true };
    const again = sliceLevelEstimates(units, {
      models: ["m"],
      scaffolds: ["s"],
      plan,
      h4: { treatment: "s", control: "s" },
    }).cells.get("m\u0001s")!;
    assert.equal(again.behaviour.recovery.estimate, 0.5);
    assert.equal(again.behaviour.recovery.recovered, 1);
  });
});

describe("GLMM likelihood-ratio test (H2)", () => {
  const design = {
    seed: 7,
    questions: 120,
    attempts: 3,
    model: { a: 0.4, b: -0.2, c: 0 },
    scaffold: { s1: 0, s2: 0.3, s3: -0.1 },
    questionSd: 1,
  };

  it("recovers a planted scaffold x model interaction", () => {
    const units = plantedAgentUnits({ ...design, interaction: { "a:s2": 1.2, "b:s3": -1.2 } });
    const result = scaffoldModelGlmm(units, { scaffold: "s1", model: "a" });
    assert.ok(!("skipped" in result), 'expected !("skipped" in result)');
    assert.equal(result.lrt!.df, 4);
    assert.ok(result.lrt!.p < 0.001, `p = ${result.lrt!.p}`);
    assert.equal(result.full.nObs, units.length);
    assert.equal(result.full.nIds, design.questions);
    assert.ok(result.full.converged, `max |gradient| ${result.full.maxAbsGradient}`);
    assert.ok(
      result.full.aic !== null && result.full.bic! > result.full.aic!,
      "expected result.full.aic !== null && result.full.bic! > result.full.aic!",
    );
    assert.ok(
      result.full.coefficients.some((c) => c.name.includes("scaffold") && c.name.includes("model")),
      'expected result.full.coefficients.some((c) => c.name.includes("scaffold") && c.name.includes("mo...',
    );
    assert.ok(
      result.baseline.coefficients.some((c) => c.name === "level"),
      "two levels: a level term",
    );
  });

  it("does not reject when no interaction is planted", () => {
    const units = plantedAgentUnits(design);
    const result = scaffoldModelGlmm(units, {});
    assert.ok(!("skipped" in result), 'expected !("skipped" in result)');
    assert.ok(result.lrt!.p > 0.01, `p = ${result.lrt!.p}`);
    assert.equal(result.referenceScaffold, "s1");
  });
});

describe("the agent columns of a tidy table", () => {
  const dir = mkdtempSync(join(tmpdir(), "parallax-agents-"));
  const header =
    "model,benchmark,item_id,attempt,scaffold,status,outcome,failure_bucket,input_tokens,output_tokens,cost_usd,tool_calls,tool_errors,tool_error_mid_trajectory,recovered_after_tool_error,working_seconds,cache_read_tokens,cache_write_tokens,agent_flags,meta.level,meta.file_name";

  it("fills the agent block and the item's level and attachment", () => {
    const path = join(dir, "ok.csv");
    writeFileSync(
      path,
      [
        header,
        "m,gaia,t1,1,react,finished,1,,100,20,0.01,3,1,true,true,12.5,50,5,,1,data.xlsx",
        "m,gaia,t2,1,react,errored,,content_filter,10,0,0.002,0,0,false,,0,0,0,provider_serialization_bug;truncated,2,",
      ].join("\n"),
    );
    const table = readTidyTable(path);
    assert.deepEqual(table.facets, ["scaffold"]);
    const [first, second] = table.rows;
    assert.equal(first.agent?.toolCalls, 3);
    assert.equal(first.agent?.recoveredAfterToolError, true);
    assert.equal(first.agent?.workingSeconds, 12.5);
    assert.equal(second.agent?.recoveredAfterToolError, null);
    assert.deepEqual(second.agent?.flags, ["provider_serialisation_bug", "truncated"]);
    assert.equal(second.agent?.failureBucket, "content_filter");
    assert.equal(table.items?.get(clusterKey("gaia", "t1"))?.level, "1");
    const { units } = agentUnits(table.rows, "scaffold", table.items, plan);
    assert.deepEqual(
      units.map((u) => [u.level, u.document, u.bucket]),
      [
        ["1", true, "correct"],
        ["2", false, "bug"],
      ],
    );
  });

  it("names file, line and column of a bad agent value", () => {
    const path = join(dir, "bad.csv");
    writeFileSync(path, [header, "m,gaia,t1,1,react,finished,1,,1,1,0,many,0,false,,1,0,0,,1,"].join("\n"));
    assert.throws(
      () => readTidyTable(path),
      (e: unknown) =>
        e instanceof InputError && /bad\.csv:2: column 'tool_calls': expected a non-negative number/.test(e.message),
    );
  });

  it("has no agent block without agent columns", () => {
    const path = join(dir, "plain.csv");
    writeFileSync(path, "model,benchmark,item_id,scaffold,outcome\nm,b,1,direct,1\n");
    assert.equal(readTidyTable(path).rows[0].agent, undefined);
  });
});

describe("the registered analysis", () => {
  it("runs inside analyze on an agent table: slices per level, H1, GLMM per slice, frontier", async () => {
    const scaffolds = ["react", "par", "plan_exec"];
    const table = leveledAgentTable(
      { alpha: { react: 0.3, par: 0.6, plan_exec: 0.5 }, beta: { react: 0.7, par: 0.75, plan_exec: 0.72 } },
      scaffolds,
    );
    const analysis = await analyzeStudy(
      table,
      normalizePlan({ reference: { scaffold: "react" }, agents: { resamples: 200, tiers: ["alpha", "beta"] } }),
    );
    const result = analysis.agents;
    assert.ok(result && !("skipped" in result), 'expected result && !("skipped" in result)');
    assert.deepEqual(result.levels, ["1", "2"]);
    assert.deepEqual(result.scaffolds, scaffolds);
    assert.equal(result.slices.length, 6);
    assert.equal(result.glmm.length, 3);
    const primary1 = result.slices.find((s) => s.slice === "primary" && s.level === "1")!;
    for (const cell of primary1.cells) assert.equal(cell.outcomes.attempts, 30);
    assert.ok(primary1.frontier.length >= 1, "expected primary1.frontier.length >= 1");
    assert.ok(
      primary1.ladder && primary1.ladder.models.length === 2,
      "expected primary1.ladder && primary1.ladder.models.length === 2",
    );
    const h1 = result.h1.find((h) => h.slice === "primary")!;
    const alphaGap = primary1.gaps.find((g) => g.model === "alpha")!.gap.estimate!;
    assert.equal(h1.supported, alphaGap >= 0.1 || primary1.gaps.some((g) => (g.gap.estimate ?? 0) >= 0.1));
    assert.ok(
      primary1.dod.some((d) => d.h4 && d.treatment === "plan_exec" && d.control === "react"),
      'expected primary1.dod.some((d) => d.h4 && d.treatment === "plan_exec" && d.control === "react")',
    );
    const summary = formatSummary(analysis, {
      preregistration: { status: "not preregistered", note: "test" },
      blinding: { blinded: false, blindingIndex: null, details: {}, source: null, note: "n/a" },
      judgeAgreement: { crossValidated: false, kappa: null, details: {}, source: null, note: "n/a" },
    });
    assert.match(summary, /scaffold gap \(max - min accuracy, shared resamples\)/);
    assert.match(summary, /H1 \(primary, level 1, gap >= 10 pp\)/);
    assert.match(summary, /GLMM \(robust\): LRT scaffold x model chi2\(2\)/);
  });

  it("is skipped on a table without agent rows", () => {
    const rows = [agentRow({ model: "m", scaffold: "s", item: "q", outcome: 1 })];
    delete rows[0].agent;
    const table = agentTable(rows, ["s"]);
    const ctx = { rows, table, plan: normalizePlan(undefined), resolved: { comparisonFacet: "scaffold" } };
    const result = agentsAnalysis(ctx as unknown as Parameters<typeof agentsAnalysis>[0]);
    assert.ok("skipped" in result, 'expected "skipped" in result');
  });
});

describe("cost per correct with and without prices", () => {
  const scaffolds = ["react", "par"];
  // Two models, two scaffolds, 12 questions x 2 attempts; every third attempt errors. Costs are
  // planted per unit (priced) or 0 everywhere (no prices declared).
  function table(cost: (model: string, scaffold: string, q: number, attempt: number) => number) {
    const rows = [];
    for (const model of ["alpha", "beta"])
      for (const scaffold of scaffolds)
        for (let q = 0; q < 12; q++)
          for (let attempt = 1; attempt <= 2; attempt++) {
            const errored = (q + attempt) % 3 === 0;
            rows.push(
              agentRow({
                model,
                scaffold,
                item: `t${q}`,
                attempt,
                outcome: (q * 5 + attempt + (model === "alpha" ? 1 : 0)) % 2,
                errored,
                agent: {
                  costUsd: cost(model, scaffold, q, attempt),
                  toolCalls: 2,
                  outputTokens: 50,
                  ...(errored ? { failureBucket: "other" } : {}),
                },
              }),
            );
          }
    return agentTable(rows, scaffolds);
  }
  const analyse = async (t: ReturnType<typeof table>) => {
    const analysis = await analyzeStudy(
      t,
      normalizePlan({ reference: { scaffold: "react" }, agents: { resamples: 100 } }),
    );
    const result = analysis.agents;
    assert.ok(result && !("skipped" in result), "the agent analysis ran");
    const overview = registeredAnalyses().find((a) => a.name === "agents")!.overview!({
      analysis,
    } as unknown as PresentedAnalysis);
    return { analysis, result, overview };
  };

  it('reads "n/a: no prices" (never $0) for cost per correct and the frontier when no prices are declared', async () => {
    const { result, overview } = await analyse(table(() => 0));
    assert.deepEqual(result.unpriced, ["alpha", "beta"], "both models are unpriced");
    const primary = result.slices.find((s) => s.slice === "primary")!;
    for (const c of primary.cells) {
      assert.equal(c.cost.priced, false, `${c.model} ${c.scaffold} is unpriced`);
      assert.equal(costPerCorrectText(c), NO_PRICES, "the cell's cost per correct reads n/a: no prices");
      assert.equal(c.onFrontier, false, "an unpriced cell is not on the frontier");
    }
    assert.equal(frontierText(primary), NO_PRICES, "the frontier reads n/a: no prices");
    assert.ok(
      overview.some((l) => l.includes(NO_PRICES)),
      `the overview says n/a: no prices:\n${overview.join("\n")}`,
    );
    assert.ok(!overview.some((l) => l.includes("$0")), "the overview never prints $0");
    for (const l of overview) assert.ok(l.length <= 120, `overview line within 120 columns: ${l}`);
  });

  it("computes cost per correct as the planted cost over the correct units, and shows the frontier", async () => {
    const price = (model: string, scaffold: string, q: number, attempt: number) =>
      (model === "alpha" ? 0.02 : 0.05) * (scaffold === "par" ? 2 : 1) * (1 + ((q + attempt) % 4));
    const t = table(price);
    const { result, overview } = await analyse(t);
    assert.deepEqual(result.unpriced, [], "every model is priced");
    const primary = result.slices.find((s) => s.slice === "primary")!;
    for (const c of primary.cells) {
      const rows = t.rows.filter((r) => r.model === c.model && r.facets.scaffold === c.scaffold);
      const cost = rows.reduce((sum, r) => sum + (r.agent?.costUsd ?? 0), 0);
      const correct = rows.filter((r) => !r.errored && r.outcome === 1).length;
      assert.ok(
        Math.abs((c.cost.realized.estimate ?? Number.NaN) - cost / correct) < 1e-12,
        `${c.model} ${c.scaffold}: cost per correct ${c.cost.realized.estimate} = ${cost} / ${correct}`,
      );
      assert.ok(Math.abs(c.cost.totalUsd - cost) < 1e-12, `${c.model} ${c.scaffold}: total cost is the planted sum`);
    }
    assert.ok(primary.frontier.length >= 1, "the Pareto frontier has a cell");
    assert.notEqual(frontierText(primary), NO_PRICES, "the frontier is shown");
    const alphaReact = primary.cells.find((c) => c.model === "alpha" && c.scaffold === "react")!;
    assert.ok(
      overview.some((l) => l.includes(costPerCorrectText(alphaReact)) && l.startsWith("alpha")),
      `the overview shows the dollar cost per correct:\n${overview.join("\n")}`,
    );
  });

  it("shows both accuracies with the one-line reason they differ", async () => {
    const { result, overview } = await analyse(table(() => 0.01));
    const c = result.slices.find((s) => s.slice === "primary")!.cells[0];
    assert.ok(
      c.outcomes.accuracyOverall !== c.outcomes.accuracyCompleted,
      "errored attempts make the two accuracies differ",
    );
    assert.ok(
      overview.some((l) => l.startsWith("acc = correct / attempts")),
      `the overview gives the reason:\n${overview.join("\n")}`,
    );
  });
});
