/**
 * What the perturbation audit reads from a study directory beyond the analysis rows: the F1
 * silent-no-op audit over the stored scorer-consumed bytes (run/score/no-op-audit.ts), and each
 * benchmark's loader meta (archetype, trivial baseline kind, reference scoring; the spec's benchmark
 * entry may declare the archetype and the baseline kind, which win) with the trivial baseline
 * computed from the run's items (G2).
 */
import type { Item } from "../../contracts/item.js";
import type { BenchmarkMeta } from "../../datasets/types.js";
import { type NoOpAudit, noOpAudit } from "../../run/score/no-op-audit.js";
import type { RunRecord, TrialStore } from "../../run/store/types.js";
import { recordedStudy } from "./recorded-study.js";

export interface BenchmarkAuditMeta {
  loader: string;
  archetype: BenchmarkMeta["archetype"] | null;
  /** Where the archetype comes from: the spec's benchmark entry or the loader's meta. */
  archetypeSource?: "spec" | "loader" | null;
  baselineKind: BenchmarkMeta["baseline"] | null;
  /** The trivial baseline on this benchmark's items (null: unknown). */
  baseline: number | null;
  /** How the benchmark's source scores it, and the loader's default scorer per path. */
  scoring: BenchmarkMeta["scoring"] | null;
  scorers: BenchmarkMeta["scorers"] | null;
}

export interface AuditFacts {
  noOp: NoOpAudit | { unavailable: string };
  benchmarks: Record<string, BenchmarkAuditMeta>;
}

/** Whether a spec's grid has a perturbation other than `none`. */
export function hasPerturbations(run: RunRecord): boolean {
  const values = run.spec.conditions.facets.perturbation ?? [];
  return values.some((v) => (typeof v === "object" ? v.name : String(v)) !== "none");
}

/** The audit facts of a perturbation study; undefined for a study without perturbations. */
export async function studyAuditFacts(
  dir: string,
  store: TrialStore,
  run: RunRecord,
): Promise<AuditFacts | { unavailable: string } | undefined> {
  if (!hasPerturbations(run)) return undefined;
  const study = await recordedStudy(dir, store, run);
  const { datasetLoaders } = await import("../../datasets/registry.js");
  const benchmarks: Record<string, BenchmarkAuditMeta> = {};
  for (const b of run.spec.benchmarks) {
    const meta = datasetLoaders.has(b.loader) ? datasetLoaders.get(b.loader).meta : null;
    const items = "unavailable" in study ? undefined : study.items.get(b.id);
    // The spec's benchmark entry overrides the loader's declaration (inline and imported benchmarks).
    const archetype = b.archetype ?? meta?.archetype ?? null;
    const baselineKind = b.baseline ?? meta?.baseline ?? null;
    benchmarks[b.id] = {
      loader: b.loader,
      archetype,
      archetypeSource: b.archetype ? "spec" : meta ? "loader" : null,
      baselineKind,
      baseline: baselineKind && items ? trivialBaseline(baselineKind, [...items.values()]) : null,
      scoring: meta?.scoring ?? null,
      scorers: meta?.scorers ?? null,
    };
  }
  const prepared = "unavailable" in study ? null : study;
  return { noOp: await noOpAudit(store, run, prepared), benchmarks };
}

/**
 * Table 1, G2's trivial baseline: uniform choice (the mean of 1/k over the items' k options; a
 * sentence pair is 1/2), the majority class (the share of the most common gold answer: gold index,
 * else the item's label), or none (0).
 */
export function trivialBaseline(kind: BenchmarkMeta["baseline"], items: readonly Item[]): number | null {
  if (items.length === 0) return null;
  if (kind === "none") return 0;
  if (kind === "uniform") {
    const guesses = items.map((i) => (i.options && i.options.length > 0 ? 1 / i.options.length : 0));
    return guesses.reduce((a, b) => a + b, 0) / items.length;
  }
  const classes = new Map<string, number>();
  for (const item of items) {
    const label = item.goldIndex ?? item.metadata.label ?? item.goldText ?? null;
    const key = JSON.stringify(label);
    classes.set(key, (classes.get(key) ?? 0) + 1);
  }
  return Math.max(...classes.values()) / items.length;
}
