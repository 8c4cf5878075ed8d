/**
 * What the viewer knows about the study it shows: the read-only store, the run, and the run's
 * distinct (model, benchmark, condition) groups, read once at start (a run's trials are planned
 * up front, so the groups do not change while it runs). Facet filters resolve to the condition
 * hashes of these groups, so the store pages by an indexed column instead of parsing JSON.
 */
import { type Condition, facetLabel } from "../contracts/condition.js";
import type { FacetValue } from "../contracts/spec.js";
import { InputError } from "../core/errors.js";
import type { TrialGroup } from "../run/store/browse.js";
import { isPostgresUrl, openStore } from "../run/store/open.js";
import type { RunRecord, TrialStore } from "../run/store/types.js";
import { existsSync } from "node:fs";
import { join } from "node:path";

export interface ViewerStudy {
  store: TrialStore;
  run: RunRecord;
  groups: readonly TrialGroup[];
  /** Facet name -> its labels present in the run, in first-seen order. */
  facets: ReadonlyMap<string, readonly string[]>;
  /** Condition hash -> facet name -> label. */
  labelsOf: ReadonlyMap<string, Readonly<Record<string, string>>>;
}

/** Opens DIR or a PostgreSQL URL read-only and reads its run (the latest, or `runId`). */
export async function openViewerStudy(target: string, runId?: string): Promise<ViewerStudy> {
  if (!isPostgresUrl(target) && !existsSync(join(target, "parallax.db"))) {
    throw new InputError(`${target} is not a study directory (no parallax.db); give a study directory or a store URL`);
  }
  const store = await openStore(target, { readOnly: true });
  try {
    const run = await store.getRun(runId);
    if (!run) throw new InputError(runId ? `${target} holds no run '${runId}'` : `${target} holds no run yet`);
    return studyOf(store, run, await store.trialGroups(run.id));
  } catch (error) {
    await store.close();
    throw error;
  }
}

export function studyOf(store: TrialStore, run: RunRecord, groups: readonly TrialGroup[]): ViewerStudy {
  const facets = new Map<string, string[]>();
  const labelsOf = new Map<string, Record<string, string>>();
  for (const group of groups) {
    if (labelsOf.has(group.conditionHash)) continue;
    const labels = conditionLabels(JSON.parse(group.condition) as Condition);
    labelsOf.set(group.conditionHash, labels);
    for (const [facet, label] of Object.entries(labels)) {
      const known = facets.get(facet) ?? [];
      if (!known.includes(label)) known.push(label);
      facets.set(facet, known);
    }
  }
  return { store, run, groups, facets, labelsOf };
}

export function conditionLabels(condition: Condition): Record<string, string> {
  return Object.fromEntries(Object.entries(condition).map(([k, v]) => [k, facetLabel(v as FacetValue)]));
}

/** The condition hashes whose facets carry every chosen label (undefined: no facet filter). */
export function conditionsMatching(study: ViewerStudy, chosen: Readonly<Record<string, string>>): string[] | undefined {
  const entries = Object.entries(chosen);
  if (entries.length === 0) return undefined;
  return [...study.labelsOf]
    .filter(([, labels]) => entries.every(([facet, label]) => labels[facet] === label))
    .map(([hash]) => hash);
}
