/**
 * Every facet a spec may use, by name. A new facet is one file and one line here; the spec is
 * validated against this registry when it loads (validate.ts), so a misspelt facet name is an
 * error instead of a silent extra column.
 */
import { Registry } from "../core/registry.js";
import { formatFacet } from "./format.js";
import { perturbationFacet } from "./perturbation.js";
import { scaffoldFacet } from "./scaffold.js";
import { scoringPathFacet } from "./scoring-path.js";
import { systemPromptFacet } from "./system-prompt.js";
import type { Facet, FacetStage } from "./types.js";

export const facets = new Registry<Facet>("facet");
for (const facet of [scaffoldFacet, formatFacet, perturbationFacet, systemPromptFacet, scoringPathFacet]) {
  facets.register(facet.name, facet);
}

/** The registered facets that act at `stage`, in name order. */
export function facetsAt(stage: FacetStage): Facet[] {
  return facets
    .names()
    .map((name) => facets.get(name))
    .filter((facet) => facet.stage === stage);
}
