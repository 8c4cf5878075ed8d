/**
 * What some integrity checks read beyond the analysis rows (which carry no gold and no format),
 * from a study directory:
 * - where each trial's gold option was shown: the position of the gold among the options of the
 *   stored task (after any reorder), from the study's items as the store records them. Option
 *   letters are labels, not positions: a relabelling perturbation (Z, Y, X ...) moves no option,
 *   so the position is read, never the letter;
 * - what scored each trial: its run-time scorer (stored with its outcome), the format of its
 *   stored task, and each benchmark's dataset loader (the run's spec);
 * - why each errored trial errored: its failure bucket.
 */
import type { FailureBucket } from "../../contracts/failure.js";
import type { Condition } from "../../contracts/condition.js";
import type { Item } from "../../contracts/item.js";
import { trialItems } from "../../run/score/stored-tasks.js";
import { trialPages } from "../../run/store/pages.js";
import type { RunRecord, TaskFacts, TrialRow, TrialStore } from "../../run/store/types.js";
import type { PreparedStudy } from "../../run/prepare/study.js";
import { type RecordedStudy, recordedStudy } from "./recorded-study.js";
import { studyAuditFacts } from "./audit-facts.js";
import { TrialIdMap } from "./trial-id-map.js";
import type { FormattedGold, IntegrityFacts } from "../integrity/registry.js";

export async function studyIntegrityFacts(dir: string, store: TrialStore, run: RunRecord): Promise<IntegrityFacts> {
  const reader = integrityFactsReader(dir, store, run);
  for await (const page of trialPages(store, run.id, { status: ["finished", "errored"], pageSize: 2_000 })) {
    await reader.add(page);
  }
  return reader.facts();
}

/** The integrity facts of a run's trials fed to it a page at a time (pending ones are skipped). */
export interface IntegrityFactsReader {
  add(page: readonly TrialRow[]): Promise<void>;
  facts(): Promise<IntegrityFacts>;
}

/**
 * `studyIntegrityFacts` from pages another reader reads anyway (the analysis table's), so a run's
 * trials are read once for both. The trials' outcomes need no text: `listTrialFacts` rows do.
 */
export function integrityFactsReader(dir: string, store: TrialStore, run: RunRecord): IntegrityFactsReader {
  let study: RecordedStudy | undefined;
  const goldOfTask = new Map<string, FormattedGold | null>();
  // Kept for every trial while the analyses run: ids as bytes, values shared (trial-id-map.ts).
  const golds = new TrialIdMap<FormattedGold>();
  const trials = new TrialIdMap<{ scorer: string | null; format: string | null }>();
  const formatOf = new Map<string, string>();
  const failureBuckets = new Map<string, FailureBucket>();
  // Every trial gets an entry, but few (scorer, format) pairs occur: each is one shared object.
  // Found by scorer, then format (null a key of its own): no key string is made per trial.
  const scorings = new Map<string | null, Map<string | null, { scorer: string | null; format: string | null }>>();
  const scoring = (scorer: string | null, format: string | null) => {
    let ofScorer = scorings.get(scorer);
    if (ofScorer === undefined) {
      ofScorer = new Map();
      scorings.set(scorer, ofScorer);
    }
    const known = ofScorer.get(format);
    if (known !== undefined) return known;
    const made = { scorer, format };
    ofScorer.set(format, made);
    return made;
  };
  // Many tasks (an item under many conditions) show its gold alike: one record each, not one per task.
  const goldRecords = new Map<string, FormattedGold>();
  const sharedGold = (gold: FormattedGold | null): FormattedGold | null => {
    if (gold === null) return null;
    const key = `${gold.benchmark}\u0000${gold.item}\u0000${gold.position}\u0000${gold.options}`;
    const known = goldRecords.get(key);
    if (known !== undefined) return known;
    goldRecords.set(key, gold);
    return gold;
  };
  // The stored scorer "name@version" (run-trial.ts) -> its name, which the registry knows.
  const scorerNames = new Map<string, string>();
  const scorerName = (stored: string): string => {
    const known = scorerNames.get(stored);
    if (known !== undefined) return known;
    const name = stored.replace(/@[^@]*$/, "");
    scorerNames.set(stored, name);
    return name;
  };
  return {
    async add(page) {
      const done = page.filter((t) => t.status === "finished" || t.status === "errored");
      if (done.length === 0) return;
      // Read when first needed: a run without finished trials is refused before it is read.
      study ??= await recordedStudy(dir, store, run);
      const known = study;
      const hashes = [...new Set(done.map((t) => t.taskHash).filter((h): h is string => h !== null))].filter(
        (h) => !formatOf.has(h),
      );
      const tasks = hashes.length > 0 ? await store.getTaskFacts(hashes) : new Map<string, TaskFacts>();
      // A task's condition is its trials' (the task was rendered under it).
      const conditionOf = new Map<string, Condition>();
      for (const trial of done) if (trial.taskHash !== null) conditionOf.set(trial.taskHash, trial.condition);
      for (const [hash, task] of tasks) {
        formatOf.set(hash, task.format);
        if (!("unavailable" in known))
          goldOfTask.set(hash, sharedGold(formattedGold(task, conditionOf.get(hash)!, known)));
      }
      for (const trial of done) {
        const bucket = trial.status === "errored" ? trial.outcome?.failureBucket : null;
        if (bucket) failureBuckets.set(trial.id, bucket);
        const gold = trial.taskHash === null ? undefined : goldOfTask.get(trial.taskHash);
        if (gold) golds.set(trial.id, gold);
        const stored = trial.outcome?.scorer;
        trials.set(
          trial.id,
          scoring(
            stored == null ? null : scorerName(stored),
            trial.taskHash === null ? null : (formatOf.get(trial.taskHash) ?? null),
          ),
        );
      }
    },
    async facts() {
      const read = study ?? (await recordedStudy(dir, store, run));
      // The tasks' formats and golds serve `add` only: a whole run's task hashes need not outlive the read.
      formatOf.clear();
      goldOfTask.clear();
      goldRecords.clear();
      // Nor the study's items and pools: the caller keeps this reader while the analyses run.
      study = undefined;
      const audit = await studyAuditFacts(dir, store, run);
      return {
        ...(audit === undefined ? {} : { audit }),
        failureBuckets,
        golds: "unavailable" in read ? { unavailable: read.unavailable } : { trials: golds },
        scoring: {
          loaders: Object.fromEntries(run.spec.benchmarks.map((b) => [b.id, b.loader])),
          trials,
        },
      };
    },
  };
}

/**
 * Where a task showed its item's gold option: the gold's 0-based position among the task's options.
 * The perturbation record stored on the task says whether the options were rewritten or reordered
 * ("options" among the parts it changed); only then is the item as perturbed rebuilt (the
 * perturbations are deterministic) from the task's `condition` to find where its gold went. Either way the answer is checked
 * against the options as rendered; null when they disagree or the item has no single gold option.
 */
export function formattedGold(
  task: TaskFacts,
  condition: Condition,
  study: Pick<PreparedStudy, "items" | "exemplars">,
): FormattedGold | null {
  const source = study.items.get(task.benchmark)?.get(task.itemId);
  if (!source || !task.options || task.options.length < 2) return null;
  const moved = task.perturbation?.status === "applied" && (task.perturbation.changed ?? []).includes("options");
  const shown: Item | undefined = moved
    ? trialItems(study, { benchmarkId: task.benchmark, itemId: task.itemId, condition })?.scored
    : source;
  const position = shown?.goldIndex;
  if (shown === undefined || position === undefined || shown.options?.length !== task.options.length) return null;
  if (shown.options[position] !== task.options[position]) return null;
  return { benchmark: task.benchmark, item: task.itemId, position, options: task.options.length };
}
