import { Registry } from "../core/registry.js";
import { crowsPllScorer } from "./crows-pll.js";
import { exactAnswerScorer } from "./exact-answer.js";
import { gaiaScorer } from "./gaia.js";
import { logprobFirstTokenScorer } from "./logprob-first-token.js";
import { logprobOptionsScorer } from "./logprob-options.js";
import { logprobRefusalScorer } from "./logprob-refusal.js";
import { mcLastAnswerScorer } from "./mc-last-answer.js";
import { refusalPatternScorer } from "./refusal-pattern.js";
import type { AnyScorer } from "./types.js";

/** Every deterministic scorer by name (judges are built per study from the spec: src/run/score/index.ts). */
export const scorers = new Registry<AnyScorer>("scorer");
for (const scorer of [
  mcLastAnswerScorer,
  exactAnswerScorer,
  gaiaScorer,
  refusalPatternScorer,
  logprobOptionsScorer,
  logprobFirstTokenScorer,
  crowsPllScorer,
  logprobRefusalScorer,
]) {
  scorers.register(scorer.name, scorer);
}

/** The name reserved for judge scoring in `parallax score --scorer judge`. */
export const JUDGE_SCORER = "judge";

/** The registered names of a benchmark's default scorers (declared by its loader's metadata). */
export interface DefaultScorerNames {
  mc: string;
  open: string;
  logprob: string;
}

/**
 * The default scorer of a trial: on the `logprob` scoring path, the spec's override when it is a
 * log-prob scorer, the pair scorer for a sentence-pair item, else the benchmark's log-prob
 * scorer; on the free-form path, the spec's per-benchmark or global choice, else the benchmark's
 * scorer for the format (MC or open-ended).
 */
export function defaultScorerName(choice: {
  /** The loader's `meta.scorers`. */
  defaults: DefaultScorerNames;
  format: string;
  scoringPath: string;
  override?: string;
  /** The item is a sentence pair (metadata.sent_more_index, CrowS-Pairs style). */
  pairItem?: boolean;
}): string {
  if (choice.scoringPath === "logprob") {
    if (choice.override && scorers.get(choice.override).kind === "logprob") return choice.override;
    if (choice.pairItem) return crowsPllScorer.name;
    return choice.defaults.logprob;
  }
  if (choice.override) return choice.override;
  return choice.format === "mc" ? choice.defaults.mc : choice.defaults.open;
}
