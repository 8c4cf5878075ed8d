/**
 * The scaffold facet `scaffold`: which deployment configuration runs the trial, with which
 * settings ({name: react, max_iterations: 3}). Values and settings come from the scaffold
 * registry; each scaffold declares its own strict settings schema.
 */
import type { Condition } from "../contracts/condition.js";
import { DEFAULT_SCAFFOLD, facetName, facetSettings } from "../contracts/condition.js";
import { scaffolds } from "../scaffolds/registry.js";
import type { Scaffold, ScaffoldSettings } from "../scaffolds/types.js";
import type { Facet } from "./types.js";

export { DEFAULT_SCAFFOLD } from "../contracts/condition.js";

export const scaffoldFacet: Facet = {
  name: "scaffold",
  description: "the deployment configuration that runs the trial (direct, cot, react, ...)",
  stage: "run",
  knownValues: () => scaffolds.names(),
  settingsSchema: (valueName) => (scaffolds.has(valueName) ? scaffolds.get(valueName).settingsSchema : undefined),
};

/** The scaffold a condition runs and its settings. */
export function scaffoldOf(condition: Condition): { scaffold: Scaffold; settings: ScaffoldSettings } {
  const value = condition.scaffold ?? DEFAULT_SCAFFOLD;
  // The scaffold's strict schema accepted these settings when the spec loaded (no lists among them).
  return { scaffold: scaffolds.get(facetName(value)), settings: facetSettings(value) as ScaffoldSettings };
}
