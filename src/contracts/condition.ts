import type { FacetValue } from "./spec.js";

/** One point in the facet space: facet name -> value. Hashed canonically (core/hash). */
export type Condition = Readonly<Record<string, FacetValue>>;

/** A facet value's short name: the value itself, or `name` of a parameterised value. */
export function facetName(value: FacetValue): string {
  return typeof value === "object" ? value.name : String(value);
}
