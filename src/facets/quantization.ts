/**
 * The quantization facet `quantization` (SafetyRepro §3, App. O): variants of one model as one
 * axis. Each model entry maps every value to its variant (`quantizations: {F32: a.gguf, Q8_0:
 * b.gguf}`, or provider model ids); the trial runs on that variant while its model id stays the
 * same, and records which weights answered (TrialOutcome.modelRevision).
 */
import type { Condition } from "../contracts/condition.js";
import { facetName } from "../contracts/condition.js";
import type { ModelSpec, StudySpec } from "../contracts/spec.js";
import type { Facet, FacetSpecProblem } from "./types.js";

export const quantizationFacet: Facet = {
  name: "quantization",
  description: "the model variant (precision) that answers: a name every model maps in its `quantizations`",
  stage: "run",
  // The names are the models' own (F32, Q8_0, nf4, ...): checked against them in specProblems.
  knownValues: () => [],
  acceptsCustom: (value) => typeof value !== "object" || Object.keys(value).length === 1,
  specProblems: missingVariants,
};

function missingVariants(spec: StudySpec): FacetSpecProblem[] {
  const values = (spec.conditions.facets.quantization ?? []).map(facetName);
  return spec.models.flatMap((model, i) =>
    values
      .filter((value) => model.quantizations?.[value] === undefined)
      .map((value) => ({
        path: ["models", i],
        message:
          `model '${model.id}' declares no variant for quantization '${value}' (the quantization facet lists it); ` +
          `add quantizations: {${value}: <model file or provider model id>}` +
          (model.quantizations ? `; it declares: ${Object.keys(model.quantizations).join(", ")}` : ""),
      })),
  );
}

/** The provider model id (or GGUF path) a condition runs `model` as: its quantization variant, else its own. */
export function quantizedModel(model: ModelSpec, condition: Condition): string {
  const value = condition.quantization;
  if (value === undefined) return model.model;
  const variant = model.quantizations?.[facetName(value)];
  if (variant === undefined) {
    throw new Error(`model '${model.id}' has no variant for quantization '${facetName(value)}'`);
  }
  return variant;
}
