/**
 * Everything one trial page shows, read from the store: the trial, its sub-calls, its stored
 * scores, its task, the blinding state and (once unblinded) its verdicts, the other trials of
 * the same item, and for a perturbed trial the task of the same item unperturbed.
 */
import type { TaskInput } from "../contracts/task.js";
import type { CallRecord, ScoreRecord } from "../contracts/trial.js";
import { readJudgements } from "../run/score/judgements.js";
import type { TrialRow, VerdictRecord } from "../run/store/types.js";
import type { ViewerStudy } from "./study.js";

export interface TrialData {
  trial: TrialRow;
  calls: CallRecord[];
  scores: ScoreRecord[];
  task: TaskInput | undefined;
  /** A blinding round exists and is not unblinded yet. */
  blinded: boolean;
  verdicts: VerdictRecord[];
  /** Other trials of the same benchmark item (any model, condition, attempt). */
  siblings: TrialRow[];
  /** For a perturbed trial: the same item's task without a perturbation, and the trial it comes from. */
  original: { trial: TrialRow; task: TaskInput } | undefined;
}

/** At most this many other trials of an item are listed. */
const SIBLING_LIMIT = 200;

export async function getTrial(study: ViewerStudy, id: string): Promise<TrialRow | undefined> {
  const { trials } = await study.store.browseTrials(study.run.id, { trialIds: [id] }, { limit: 1 });
  return trials[0];
}

export async function loadTrialData(study: ViewerStudy, trial: TrialRow): Promise<TrialData> {
  const { store, run } = study;
  const [calls, scores, judgements, same] = await Promise.all([
    store.listCalls(run.id, trial.id),
    store.listScores(run.id, { trialIds: [trial.id] }),
    readJudgements(store, run.id),
    store.browseTrials(run.id, { items: [trial.itemId], benchmarks: [trial.benchmarkId] }, { limit: SIBLING_LIMIT }),
  ]);
  const siblings = same.trials.filter((t) => t.id !== trial.id);
  const task = trial.taskHash ? (await store.getTasks([trial.taskHash])).get(trial.taskHash) : undefined;
  const blinded = judgements !== undefined && judgements.round.unblindedAt === null;
  const verdicts = blinded ? [] : (judgements?.verdicts ?? []).filter((v) => v.trialId === trial.id);
  const original = task?.perturbation?.status === "applied" ? await unperturbed(study, trial, siblings) : undefined;
  return { trial, calls, scores, task, blinded, verdicts, siblings, original };
}

/**
 * The closest trial of the same item whose task carries no applied perturbation: the same model
 * and condition apart from the perturbation facet if there is one, else any.
 */
async function unperturbed(study: ViewerStudy, trial: TrialRow, siblings: TrialRow[]): Promise<TrialData["original"]> {
  const hashes = siblings.flatMap((s) => (s.taskHash ? [s.taskHash] : []));
  const tasks = await study.store.getTasks(hashes);
  const rank = (s: TrialRow) => (s.modelId === trial.modelId ? 0 : 2) + (sameApartFromPerturbation(s, trial) ? 0 : 1);
  const candidates = siblings
    .filter((s) => s.taskHash && tasks.get(s.taskHash)?.perturbation?.status !== "applied")
    .sort((a, b) => rank(a) - rank(b));
  const best = candidates[0];
  return best ? { trial: best, task: tasks.get(best.taskHash!)! } : undefined;
}

function sameApartFromPerturbation(a: TrialRow, b: TrialRow): boolean {
  const keys = new Set([...Object.keys(a.condition), ...Object.keys(b.condition)]);
  keys.delete("perturbation");
  return [...keys].every((k) => JSON.stringify(a.condition[k]) === JSON.stringify(b.condition[k]));
}
