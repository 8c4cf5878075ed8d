/**
 * A run demo study of two simulated models with a stored scorer's scores of some of its trials:
 * the fixture of the tests that compare the analysis table's reads.
 */
import type { ScoreRecord } from "../../src/contracts/trial.js";
import { runStudy } from "../../src/run/execute/run-study.js";
import { openStore } from "../../src/run/store/open.js";
import type { RunRecord, TrialRow, TrialStore } from "../../src/run/store/types.js";
import { type DemoSpecOptions, writeDemoSpec } from "./study.js";

/** Two simulated models of different strength, answering greedily: a spec's `models:` entries. */
export const TWO_SIM_MODELS = `  - id: sim-a
    provider: sim
    model: medium
    params: { temperature: 0 }
  - id: sim-b
    provider: sim
    model: weak
    params: { temperature: 0 }`;

/** A stored scorer's score of each trial (`score(i)` for the i-th), as `parallax score` stores them. */
export function storedScores(
  trials: readonly { id: string }[],
  scorer: string,
  score: (i: number) => number,
): ScoreRecord[] {
  return trials.map((t, i) => ({
    trialId: t.id,
    scorer,
    version: "1",
    parsedAnswer: "A",
    parseStatus: "ok" as const,
    score: score(i),
    details: null,
    createdAt: "2030-01-01T00:00:00.000Z",
  }));
}

/**
 * Runs a demo study of TWO_SIM_MODELS and stores the "strict" scorer's scores of `scored` of its
 * trials (in id order); the caller closes the store.
 */
export async function runScoredDemoStudy(
  options: Omit<DemoSpecOptions, "models">,
  scored: { trials: (trials: TrialRow[]) => TrialRow[]; score: (i: number) => number },
): Promise<{ outDir: string; store: TrialStore; run: RunRecord; trials: TrialRow[] }> {
  const { specPath, outDir } = writeDemoSpec({ ...options, models: TWO_SIM_MODELS });
  await runStudy({ specPath, outDir, env: {} });
  const store = await openStore(outDir);
  const run = (await store.getRun())!;
  const trials = await store.listTrials(run.id);
  await store.saveScores(storedScores(scored.trials(trials), "strict", scored.score));
  return { outDir, store, run, trials };
}
