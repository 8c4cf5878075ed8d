/**
 * Every facet a spec may use, by name. A new facet is one file and one line here; the spec is
 * validated against this registry when it loads (validate.ts), so a misspelt facet name is an
 * error instead of a silent extra column.
 */
import { facetLabel } from "../contracts/condition.js";
import type { FacetValue } from "../contracts/spec.js";
import { Registry } from "../core/registry.js";
import { decodingFacet } from "./decoding.js";
import { fewShotFacet } from "./few-shot.js";
import { formatFacet } from "./format.js";
import { perturbationFacet } from "./perturbation.js";
import { quantizationFacet } from "./quantization.js";
import { scaffoldFacet } from "./scaffold.js";
import { scoringPathFacet } from "./scoring-path.js";
import { systemPromptFacet } from "./system-prompt.js";
import { templateFacet } from "./template.js";
import type { Facet, FacetStage } from "./types.js";

export const facets = new Registry<Facet>("facet");
for (const facet of [
  scaffoldFacet,
  formatFacet,
  perturbationFacet,
  systemPromptFacet,
  scoringPathFacet,
  templateFacet,
  decodingFacet,
  fewShotFacet,
  quantizationFacet,
]) {
  facets.register(facet.name, facet);
}

/** Each stage's facets, worked out once per registry size: rendering asks for them for every trial. */
const atStage = new Map<FacetStage, { registered: number; list: Facet[] }>();

/** The registered facets that act at `stage`, in name order (a shared list: do not change it). */
export function facetsAt(stage: FacetStage): readonly Facet[] {
  const known = atStage.get(stage);
  if (known !== undefined && known.registered === facets.size) return known.list;
  const list = facets
    .names()
    .map((name) => facets.get(name))
    .filter((facet) => facet.stage === stage);
  atStage.set(stage, { registered: facets.size, list });
  return list;
}

/**
 * The condition keys of a spec's grid, in spec order: each facet, then the keys its expansion
 * adds (decoding -> decoding_seed). The columns of the trials export and of the analysis rows.
 */
export function conditionColumns(conditions: { facets: Record<string, unknown> }): string[] {
  return Object.keys(conditions.facets).flatMap((name) => [
    name,
    ...(facets.has(name) ? (facets.get(name).impliedColumns ?? []) : []),
  ]);
}

/**
 * Whether a condition column numbers replicates nested in a facet's value (decoding_seed): such a
 * column identifies a trial but is never a model term (Facet.replicateColumns).
 */
export function isReplicateColumn(column: string): boolean {
  return facets.names().some((name) => facets.get(name).replicateColumns?.includes(column) ?? false);
}

/**
 * A facet's spec values with each expanded by its facet's `expandValue` (a perturbation family:
 * its slots x seeds); duplicates, by label, kept once.
 */
export function expandValues(name: string, values: readonly FacetValue[]): FacetValue[] {
  const expand = facets.has(name) ? facets.get(name).expandValue : undefined;
  if (!expand) return [...values];
  const seen = new Map<string, FacetValue>();
  for (const value of values.flatMap((v) => expand(v))) {
    if (!seen.has(facetLabel(value))) seen.set(facetLabel(value), value);
  }
  return [...seen.values()];
}

/**
 * A facet's values as conditions carry them, once each: expanded values (a perturbation family's
 * members), and a decoding value without its seed list.
 */
export function conditionValues(name: string, values: readonly FacetValue[]): FacetValue[] {
  const expanded = expandValues(name, values);
  const expand = facets.has(name) ? facets.get(name).expand : undefined;
  if (!expand) return expanded;
  const seen = new Map<string, FacetValue>();
  for (const value of expanded) for (const entry of expand(value)) seen.set(JSON.stringify(entry[name]), entry[name]);
  return [...seen.values()];
}
