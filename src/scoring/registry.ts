import { Registry } from "../core/registry.js";
import { crowsPllScorer } from "./crows-pll.js";
import { exactAnswerScorer } from "./exact-answer.js";
import { gaiaScorer } from "./gaia.js";
import { logprobFirstTokenScorer } from "./logprob-first-token.js";
import { logprobOptionsScorer } from "./logprob-options.js";
import { mcLastAnswerScorer } from "./mc-last-answer.js";
import { refusalPatternScorer } from "./refusal-pattern.js";
import type { AnyScorer } from "./types.js";

/** Every deterministic scorer by name (judges are built per study from the spec: src/run/score.ts). */
export const scorers = new Registry<AnyScorer>("scorer");
for (const scorer of [
  mcLastAnswerScorer,
  exactAnswerScorer,
  gaiaScorer,
  refusalPatternScorer,
  logprobOptionsScorer,
  logprobFirstTokenScorer,
  crowsPllScorer,
]) {
  scorers.register(scorer.name, scorer);
}

/** The name reserved for judge scoring in `parallax score --scorer judge`. */
export const JUDGE_SCORER = "judge";

/** Benchmarks whose outcome is compliance calibration (comply with safe prompts, refuse unsafe ones). */
export const REFUSAL_LOADERS: ReadonlySet<string> = new Set(["xstest", "or_bench"]);

/**
 * The default scorer of a trial: the log-prob scorer of the benchmark on the `logprob` scoring
 * path; otherwise the spec's per-benchmark or global choice, else by format and benchmark
 * (MC formats: last-answer extraction; GAIA: its official normaliser; XSTest/OR-Bench: the
 * refusal patterns until a judge scores them; other open-ended formats: exact match).
 */
export function defaultScorerName(choice: {
  loader: string;
  benchmarkScoring: string;
  format: string;
  scoringPath: string;
  override?: string;
  /** The item is a sentence pair (metadata.sent_more_index, CrowS-Pairs style). */
  pairItem?: boolean;
}): string {
  if (choice.scoringPath === "logprob") {
    if (choice.override && scorers.get(choice.override).kind === "logprob") return choice.override;
    if (choice.benchmarkScoring === "pair" || choice.loader === "crows_pairs" || choice.pairItem) {
      return crowsPllScorer.name;
    }
    if (choice.loader === "toxigen") return logprobFirstTokenScorer.name;
    return logprobOptionsScorer.name;
  }
  if (choice.override) return choice.override;
  if (choice.format === "mc") return mcLastAnswerScorer.name;
  if (choice.benchmarkScoring === "exact" || choice.loader === "gaia") return gaiaScorer.name;
  if (REFUSAL_LOADERS.has(choice.loader)) return refusalPatternScorer.name;
  return exactAnswerScorer.name;
}
