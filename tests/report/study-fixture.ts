/**
 * A small study directory written straight into a store (no model runs): two models x
 * {direct, map_reduce} x 12 items, one call per trial, planted outcomes, and one response that
 * carries markup (`<script>`, an `onerror` image) so escaping can be checked in a browser.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { CallRecord, PlannedTrial, TrialOutcome } from "../../src/contracts/trial.js";
import { conditionHash, hashValue, trialId } from "../../src/core/hash.js";
import { parseSpec } from "../../src/core/spec-loader.js";
import { openStore } from "../../src/run/store/open.js";

export const HOSTILE_OUTPUT =
  '<script>window.__pwned = 1; document.title = "pwned"</script><img src=x onerror="window.__pwned = 2">Answer: B';

const specText = (benchmark: string) => `study: report-fixture
models:
  - { id: sim-a, provider: sim, model: medium }
  - { id: sim-b, provider: sim, model: strong }
benchmarks:
  - id: ${benchmark}
    loader: inline
    items:
${Array.from({ length: 12 }, (_, i) => `      - { id: q${i + 1}, stem: "Question ${i + 1}?", options: [yes, no], gold_index: 0 }`).join("\n")}
conditions:
  facets:
    scaffold: [direct, map_reduce]
`;

/** Where the study goes (default: a new temporary folder), its run id and its benchmark's id. */
export interface FixtureOptions {
  dir?: string;
  runId?: string;
  benchmark?: string;
}

export async function writeStudyFixture(
  options: FixtureOptions = {},
): Promise<{ dir: string; hostileTrialId: string }> {
  const benchmark = options.benchmark ?? "demo";
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), "parallax-report-"));
  mkdirSync(dir, { recursive: true });
  const spec = parseSpec(specText(benchmark), "fixture.yaml");
  const runId = options.runId ?? "report-fixture-1";
  const store = await openStore(dir);
  let hostileTrialId = "";
  try {
    await store.saveRun({
      id: runId,
      study: spec.study,
      specHash: hashValue(spec),
      manifestHash: "none",
      spec,
      createdAt: "2026-01-01T00:00:00.000Z",
      parallaxVersion: "test",
    });
    // The run's items, as `parallax run` stores them (the analysis reads them from the store).
    const items = Array.from({ length: 12 }, (_, i) => ({
      id: `q${i + 1}`,
      benchmark,
      stem: `Question ${i + 1}?`,
      options: ["yes", "no"],
      goldIndex: 0,
      metadata: {},
    }));
    await store.saveRunItems(runId, items);
    const trials: PlannedTrial[] = [];
    for (const model of ["sim-a", "sim-b"]) {
      for (const scaffold of ["direct", "map_reduce"]) {
        for (let i = 1; i <= 12; i++) {
          const condition = { scaffold };
          const coords = {
            modelId: model,
            conditionHash: conditionHash(condition),
            benchmarkId: benchmark,
            itemId: `q${i}`,
            attempt: 1,
          };
          trials.push({ id: trialId(coords), runId, condition, ...coords });
        }
      }
    }
    await store.addPlannedTrials(trials);
    const completions = trials.map((t, k) => {
      const item = Number(t.itemId.slice(1));
      // Planted: direct right on 10 of 12 items, map_reduce on 5 of 12.
      const score = t.condition.scaffold === "direct" ? (item <= 10 ? 1 : 0) : item <= 5 ? 1 : 0;
      const hostile = k === 0;
      if (hostile) hostileTrialId = t.id;
      const text = hostile ? HOSTILE_OUTPUT : `Reasoning for ${t.itemId}.\nAnswer: ${score ? "A" : "B"}`;
      const outcome: TrialOutcome = {
        status: "finished",
        finalAnswer: text,
        parsedAnswer: score ? "A" : "B",
        parseStatus: "ok",
        score,
        scorer: "exact_answer",
        failureBucket: null,
        errorMessage: null,
        usage: { inputTokens: 10, outputTokens: 5 },
        costUsd: 0,
        latencyMs: 1,
        droppedParams: [],
        simulated: true,
      };
      const call: CallRecord = {
        trialId: t.id,
        execution: 1,
        seq: 1,
        role: "answer",
        messages: [
          { role: "system", content: "Answer with the letter of the correct option." },
          { role: "user", content: `Question ${item}? <b>(A) yes</b> (B) no` },
        ],
        paramsUsed: {},
        droppedParams: [],
        responseText: text,
        usage: { inputTokens: 10, outputTokens: 5 },
        costUsd: 0,
        latencyMs: 1,
        cached: false,
        error: null,
        startedAt: "2026-01-01T00:00:01.000Z",
      };
      return { trialId: t.id, outcome, calls: [call] };
    });
    await store.completeTrials(completions);
  } finally {
    await store.close();
  }
  writeFileSync(join(dir, "blinding.json"), JSON.stringify({ bang_bi: { overall: 0.04, per_arm: { direct: 0.02 } } }));
  return { dir, hostileTrialId };
}
