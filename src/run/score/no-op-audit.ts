/**
 * The silent-no-op audit (Auditing the Audit F1, gate G1): a perturbed trial is a silent no-op
 * when the bytes its SCORER consumed are identical to those of the original (perturbation `none`)
 * trial of the same model, item, attempt and otherwise-equal condition. The bytes are read from
 * what the run stored, never from today's renderer:
 * - free form: the messages of the trial's first call (of its last execution), exactly as sent and
 *   stored; the answer the scorer reads is generated from them;
 * - log-prob: the prompt and continuations the trial's scorer (its stored `name@version`) plans
 *   from the stored task and the item as perturbed, rebuilt with the executor's own
 *   `logprobRequestPlan` (a pair scorer reads the sentences, not the stem: a stem edit is a no-op).
 * A perturbation recorded as not applicable is not a no-op (it said so); it is counted apart.
 */
import type { Condition } from "../../contracts/condition.js";
import type { TaskInput } from "../../contracts/task.js";
import { canonicalJson } from "../../core/hash.js";
import { scoringPathOf } from "../../facets/scoring-path.js";
import { scorers } from "../../scoring/registry.js";
import { isLogprobScorer } from "../../scoring/types.js";
import { logprobRequestPlan } from "../execute/logprob.js";
import { trialPages } from "../store/pages.js";
import type { RunRecord, TrialRow, TrialStore } from "../store/types.js";
import type { PreparedStudy } from "../prepare/study.js";
import { trialItems } from "./stored-tasks.js";

/** What the audit knows of one finished trial. */
export interface TrialPerturbationFact {
  /** The scoring path whose consumed bytes were compared. */
  path: string;
  /** "original" for perturbation `none` (or no perturbation facet). */
  status: "original" | "applied" | "not_applicable";
  family: string | null;
  perturbation: string | null;
  seed: number | null;
  slot: number | null;
  /** Applied trials: the scorer-consumed bytes equal the original's; null when either side is unknown. */
  noOp: boolean | null;
  /** Why `noOp` is null (no original trial, no stored task or call, an unknown scorer). */
  unknown?: string;
}

/** One (benchmark, family, scoring path): applied perturbed trials and how many were no-ops. */
export interface NoOpRate {
  benchmark: string;
  family: string;
  path: string;
  applied: number;
  noOps: number;
  /** Applied trials whose bytes could not be compared (left out of the rate). */
  unknown: number;
  notApplicable: number;
  /** noOps / (applied - unknown); NaN when nothing was compared. */
  rate: number;
}

/** Original vs perturbed scorer-consumed text of one sampled trial (the report's diff view). */
export interface NoOpSample {
  benchmark: string;
  item: string;
  model: string;
  family: string;
  perturbation: string | null;
  path: string;
  original: string;
  perturbed: string;
  noOp: boolean;
}

export interface NoOpAudit {
  trials: Map<string, TrialPerturbationFact>;
  rates: NoOpRate[];
  /** Up to SAMPLES_PER_GROUP applied trials per (model, benchmark, family, path), first by trial id. */
  samples: NoOpSample[];
}

export const SAMPLES_PER_GROUP = 2;

interface Consumed {
  trial: TrialRow;
  pairKey: string;
  /** The scorer-consumed bytes as canonical JSON (compared exactly). */
  bytes: string | null;
  reason?: string;
  fact: Omit<TrialPerturbationFact, "noOp" | "unknown">;
}

/** The audit over every finished trial of the run. `study`: the run's items (log-prob needs them). */
export async function noOpAudit(store: TrialStore, run: RunRecord, study: PreparedStudy | null): Promise<NoOpAudit> {
  const consumed: Consumed[] = [];
  for await (const page of trialPages(store, run.id, { status: ["finished"], pageSize: 1_000 })) {
    const hashes = [...new Set(page.flatMap((t) => (t.taskHash === null ? [] : [t.taskHash])))];
    const tasks = hashes.length > 0 ? await store.getTasks(hashes) : new Map();
    const calls = await store.listCallsOf(
      run.id,
      page.filter((t) => scoringPathOf(t.condition) !== "logprob").map((t) => t.id),
    );
    for (const trial of page) {
      const task = trial.taskHash === null ? undefined : tasks.get(trial.taskHash);
      const path = scoringPathOf(trial.condition);
      const p = task?.perturbation;
      const fact = {
        path,
        status: p === undefined ? ("original" as const) : p.status,
        family: p?.family ?? null,
        perturbation: p?.perturbation ?? null,
        seed: p?.seed ?? null,
        slot: p?.slot ?? null,
      };
      const { bytes, reason } =
        path === "logprob" ? logprobBytes(trial, task, study) : freeFormBytes(calls.get(trial.id) ?? []);
      consumed.push({ trial, pairKey: pairKey(trial), bytes, reason, fact });
    }
  }
  const originals = new Map<string, string | null>();
  for (const c of consumed) if (c.fact.status === "original") originals.set(c.pairKey, c.bytes);
  const trials = new Map<string, TrialPerturbationFact>();
  for (const c of consumed) {
    if (c.fact.status !== "applied") {
      trials.set(c.trial.id, { ...c.fact, noOp: null });
      continue;
    }
    const original = originals.get(c.pairKey);
    const unknown =
      original === undefined
        ? "no original (perturbation none) trial of the same item and condition"
        : original === null || c.bytes === null
          ? (c.reason ?? "the original's scorer-consumed bytes are unknown")
          : undefined;
    trials.set(c.trial.id, {
      ...c.fact,
      noOp: unknown === undefined ? c.bytes === original : null,
      ...(unknown === undefined ? {} : { unknown }),
    });
  }
  return { trials, rates: ratesOf(consumed, trials), samples: samplesOf(consumed, originals, trials) };
}

/** Model, benchmark, item, attempt and the condition without its perturbation: what pairs a trial with its original. */
function pairKey(trial: TrialRow): string {
  const { perturbation: _p, ...rest } = trial.condition as Record<string, Condition[string]>;
  return canonicalJson([trial.modelId, trial.benchmarkId, trial.itemId, trial.attempt, rest]);
}

function freeFormBytes(calls: readonly { execution: number; seq: number; messages: unknown }[]): {
  bytes: string | null;
  reason?: string;
} {
  if (calls.length === 0) return { bytes: null, reason: "no stored call" };
  const last = Math.max(...calls.map((c) => c.execution));
  const first = calls.filter((c) => c.execution === last).sort((a, b) => a.seq - b.seq)[0];
  return { bytes: canonicalJson(first.messages) };
}

function logprobBytes(
  trial: TrialRow,
  task: TaskInput | undefined,
  study: PreparedStudy | null,
): { bytes: string | null; reason?: string } {
  if (!task) return { bytes: null, reason: "no stored task" };
  if (!study) return { bytes: null, reason: "the study's items are not recorded (an imported run)" };
  const name = trial.outcome?.scorer?.replace(/@[^@]*$/, "");
  if (!name || !scorers.has(name)) return { bytes: null, reason: `unknown scorer '${name ?? "none"}'` };
  const scorer = scorers.get(name);
  if (!isLogprobScorer(scorer)) return { bytes: null, reason: `scorer '${name}' is not a log-prob scorer` };
  const items = trialItems(study, trial);
  if (!items) return { bytes: null, reason: "the item is not in the study" };
  try {
    return { bytes: canonicalJson(logprobRequestPlan(scorer, items.scored, task)) };
  } catch (error) {
    return { bytes: null, reason: `the scorer cannot plan this item (${(error as Error).message})` };
  }
}

function ratesOf(consumed: readonly Consumed[], trials: ReadonlyMap<string, TrialPerturbationFact>): NoOpRate[] {
  const rates = new Map<string, NoOpRate>();
  for (const c of consumed) {
    const fact = trials.get(c.trial.id)!;
    if (fact.status === "original" || fact.family === null) continue;
    const key = canonicalJson([c.trial.benchmarkId, fact.family, fact.path]);
    const rate = rates.get(key) ?? {
      benchmark: c.trial.benchmarkId,
      family: fact.family,
      path: fact.path,
      applied: 0,
      noOps: 0,
      unknown: 0,
      notApplicable: 0,
      rate: Number.NaN,
    };
    if (fact.status === "not_applicable") rate.notApplicable++;
    else {
      rate.applied++;
      if (fact.noOp === null) rate.unknown++;
      else if (fact.noOp) rate.noOps++;
    }
    rates.set(key, rate);
  }
  for (const r of rates.values()) {
    const compared = r.applied - r.unknown;
    r.rate = compared > 0 ? r.noOps / compared : Number.NaN;
  }
  return [...rates.values()].sort((a, b) =>
    `${a.benchmark}\u0000${a.family}\u0000${a.path}`.localeCompare(`${b.benchmark}\u0000${b.family}\u0000${b.path}`),
  );
}

function samplesOf(
  consumed: readonly Consumed[],
  originals: ReadonlyMap<string, string | null>,
  trials: ReadonlyMap<string, TrialPerturbationFact>,
): NoOpSample[] {
  const taken = new Map<string, number>();
  const samples: NoOpSample[] = [];
  const ordered = [...consumed].sort((a, b) => (a.trial.id < b.trial.id ? -1 : a.trial.id > b.trial.id ? 1 : 0));
  for (const c of ordered) {
    const fact = trials.get(c.trial.id)!;
    const original = originals.get(c.pairKey);
    if (fact.status !== "applied" || fact.noOp === null || !original || !c.bytes) continue;
    const group = canonicalJson([c.trial.modelId, c.trial.benchmarkId, fact.family, fact.path]);
    if ((taken.get(group) ?? 0) >= SAMPLES_PER_GROUP) continue;
    taken.set(group, (taken.get(group) ?? 0) + 1);
    samples.push({
      benchmark: c.trial.benchmarkId,
      item: c.trial.itemId,
      model: c.trial.modelId,
      family: fact.family ?? "",
      perturbation: fact.perturbation,
      path: fact.path,
      original: readable(original),
      perturbed: readable(c.bytes),
      noOp: fact.noOp,
    });
  }
  return samples;
}

/** The consumed bytes as text to read: the messages' contents, or the log-prob prompt and continuations. */
function readable(bytes: string): string {
  const value = JSON.parse(bytes) as unknown;
  if (Array.isArray(value))
    return value.map((m: { role: string; content: string }) => `[${m.role}]\n${m.content}`).join("\n\n");
  const plan = value as { prompt: string; continuations: string[] };
  return `${plan.prompt}\n${plan.continuations.map((c, i) => `[continuation ${i + 1}] ${c}`).join("\n")}`;
}
