import type { FacetValue } from "./spec.js";

/** One point in the facet space: facet name -> value. Hashed canonically (core/hash). */
export type Condition = Readonly<Record<string, FacetValue>>;

/**
 * The scaffold of a condition without a `scaffold` facet. Here rather than with the scaffold
 * facet so that readers of stored trials (`status`) can name it without loading the scaffolds
 * and their zod schemas.
 */
export const DEFAULT_SCAFFOLD = "direct";

/** A facet value's short name: the value itself, or `name` of a parameterised value. */
export function facetName(value: FacetValue): string {
  return typeof value === "object" ? value.name : String(value);
}

/**
 * A facet value's full label, unique within a facet: "react(max_iterations=3)" for a
 * parameterised value (parameters in key order), the bare name otherwise.
 */
export function facetLabel(value: FacetValue): string {
  if (typeof value !== "object") return String(value);
  const params = Object.keys(value)
    .filter((key) => key !== "name")
    .sort()
    .map((key) => `${key}=${value[key]}`);
  return params.length === 0 ? value.name : `${value.name}(${params.join(",")})`;
}

/** The parameters of a facet value (everything but its name). */
export function facetSettings(value: FacetValue): Record<string, string | number | boolean | null | number[]> {
  if (typeof value !== "object") return {};
  const { name: _name, ...settings } = value;
  return settings;
}
