/** Step 4 of App. Q.2: on a stratified subsample, the primary judge guesses each response's configuration. */
import type { ModelSpec, StudySpec } from "../../contracts/spec.js";
import { sampleStrata } from "../../datasets/sample.js";
import {
  blindingSensitivity,
  type GuessedCase,
  type GuessingCheck,
  guessingCheck,
} from "../../scoring/blinding/guessing.js";
import type { BlindingEntry } from "../../scoring/blinding/seal.js";
import { guessMessages } from "../../scoring/judge/prompt.js";
import { parseGuess } from "../../scoring/judge/verdict.js";
import type { JudgeRuntime } from "./judges.js";
import type { Judgeable } from "./judgeables.js";
import type { JudgementLog } from "./judgements.js";

/**
 * A seeded stratified subsample of judged responses (ceil(fraction * size) of each stratum, at
 * least one), drawn by the item sampler of src/datasets/sample.ts over trial ids.
 */
export function judgedSubsample(
  judgeables: readonly Judgeable[],
  stratum: (j: Judgeable) => string,
  fraction: number,
  seed: number,
): Judgeable[] {
  return sampleStrata(judgeables, {
    id: (j) => j.entry.trialId,
    stratum,
    count: (size) => Math.max(1, Math.ceil(fraction * size)),
    seed,
  });
}

/** `mapping` is the sealed mapping, opened through its seal: the truth the guesses are checked against. */
export interface GuessingInput {
  mapping: BlindingEntry[];
  assignments: Map<string, { primary: ModelSpec }>;
  runtime: (spec: ModelSpec) => JudgeRuntime;
  spec: StudySpec;
  /** The primary judge's outcome of each response by UUID (for the sensitivity analysis). */
  outcomes?: ReadonlyMap<string, number | null>;
}

export async function guessingRound(
  log: JudgementLog,
  judgeables: Judgeable[],
  input: GuessingInput,
): Promise<GuessingCheck | null> {
  const { mapping, assignments, runtime, spec, outcomes = new Map() } = input;
  const fraction = spec.scoring?.blinding.guess_fraction ?? 0.1;
  const truth = new Map(mapping.map((e) => [e.uuid, e.configuration]));
  const configurations = [...new Set(mapping.map((e) => e.configuration))].sort();
  if (configurations.length < 2 || fraction === 0) return null;
  const sample = judgedSubsample(
    judgeables,
    (j) => truth.get(j.entry.uuid) ?? "",
    fraction,
    (spec.scoring?.seed ?? 0) + 1,
  );
  const guesses: GuessedCase[] = [];
  for (const j of sample) {
    const judge = runtime(assignments.get(j.entry.model)!.primary);
    const messages = guessMessages({ prompt: j.prompt, response: j.response }, configurations);
    let guess: string | null = null;
    try {
      const reply = await judge.call(messages, j.attempt);
      await log.call({
        uuid: j.entry.uuid,
        judge: judge.id,
        purpose: "guess",
        messages,
        response: reply.text,
        usage: reply.usage,
        cost_usd: judge.cost(reply.usage),
        error: null,
      });
      guess = parseGuess(reply.text, configurations);
    } catch (error) {
      await log.call({
        uuid: j.entry.uuid,
        judge: judge.id,
        purpose: "guess",
        messages,
        response: null,
        error: String(error),
      });
    }
    guesses.push({ truth: truth.get(j.entry.uuid)!, guess, outcome: outcomes.get(j.entry.uuid) ?? null });
  }
  const check = guessingCheck(guesses, configurations);
  return check && { ...check, sensitivity: blindingSensitivity(guesses, check, configurations) };
}
