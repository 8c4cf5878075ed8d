/**
 * What some integrity checks read beyond the analysis rows (which carry no gold and no format),
 * from a study directory:
 * - the gold letter of every item as it was formatted: the stored task of each trial gives the
 *   options in the order they were shown (after any shuffle), and the study's items, re-loaded
 *   from DIR/spec.json and checked against the run's manifest hash, give the gold option;
 * - what scored each trial: its run-time scorer (stored with its outcome), the format of its
 *   stored task, and each benchmark's dataset loader (the run's spec).
 */
import { OPTION_LETTERS } from "../contracts/item.js";
import { trialPages } from "../run/store/pages.js";
import type { RunRecord, TrialStore } from "../run/store/types.js";
import { reloadStudy } from "./reloaded-study.js";
import { studyAuditFacts } from "./audit-facts.js";
import type { FormattedGold, IntegrityFacts } from "./integrity/registry.js";

export async function studyIntegrityFacts(dir: string, store: TrialStore, run: RunRecord): Promise<IntegrityFacts> {
  const goldOf = await goldTexts(dir, run);
  const units = new Map<string, FormattedGold>();
  const trials = new Map<string, { scorer: string | null; format: string | null }>();
  const formatOf = new Map<string, string>();
  for await (const page of trialPages(store, run.id, { status: ["finished", "errored"], pageSize: 2_000 })) {
    const hashes = [...new Set(page.map((t) => t.taskHash).filter((h): h is string => h !== null))].filter(
      (h) => !formatOf.has(h),
    );
    const tasks = hashes.length > 0 ? await store.getTasks(hashes) : new Map();
    for (const [hash, task] of tasks) {
      formatOf.set(hash, task.format);
      if (goldOf instanceof Map) {
        const unit = formattedGold(goldOf, task);
        // One unit per item and letter: the same item formatted alike under every condition counts once.
        if (unit) units.set(`${unit.benchmark}\u0000${unit.item}\u0000${unit.letter}`, unit);
      }
    }
    for (const trial of page) {
      trials.set(trial.id, {
        // Stored as "name@version" (run-trial.ts); the registry knows the name.
        scorer: trial.outcome?.scorer?.replace(/@[^@]*$/, "") ?? null,
        format: trial.taskHash === null ? null : (formatOf.get(trial.taskHash) ?? null),
      });
    }
  }
  const audit = await studyAuditFacts(dir, store, run);
  return {
    ...(audit === undefined ? {} : { audit }),
    golds: goldOf instanceof Map ? { units: [...units.values()] } : goldOf,
    scoring: {
      loaders: Object.fromEntries(run.spec.benchmarks.map((b) => [b.id, b.loader])),
      trials,
    },
  };
}

/** The gold option text of every item, by benchmark and item id; or why the items are unknown. */
async function goldTexts(dir: string, run: RunRecord): Promise<Map<string, string> | { unavailable: string }> {
  const study = await reloadStudy(dir, run);
  if ("unavailable" in study) return study;
  const golds = new Map<string, string>();
  for (const [benchmark, items] of study.items)
    for (const item of items.values()) {
      const gold = item.goldIndex === undefined ? undefined : item.options?.[item.goldIndex];
      if (gold !== undefined) golds.set(`${benchmark}\u0000${item.id}`, gold);
    }
  return golds;
}

function formattedGold(
  goldOf: Map<string, string>,
  task: { benchmark: string; itemId: string; options?: string[]; validLetters?: string[] },
): FormattedGold | null {
  const gold = goldOf.get(`${task.benchmark}\u0000${task.itemId}`);
  if (gold === undefined || !task.options) return null;
  const index = task.options.indexOf(gold);
  const letters = task.validLetters ?? [...OPTION_LETTERS.slice(0, task.options.length)];
  const letter = index < 0 ? undefined : letters[index];
  return letter === undefined ? null : { benchmark: task.benchmark, item: task.itemId, letter, letters };
}
