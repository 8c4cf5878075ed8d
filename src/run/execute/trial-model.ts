/**
 * The model as one trial's condition runs it: the `quantization` facet picks the variant (another
 * GGUF file or provider model id, same model id), the `decoding` facet lays its temperature, top-p
 * and seed over the model's parameters. And which weights answered: the revision a call reported,
 * else the provider's own (a GGUF's SHA-256).
 */
import type { Condition } from "../../contracts/condition.js";
import type { CallRecord } from "../../contracts/trial.js";
import { decodingParams } from "../../facets/decoding.js";
import { quantizedModel } from "../../facets/quantization.js";
import type { ModelRuntime } from "./types.js";

export function trialModel(model: ModelRuntime, condition: Condition): ModelRuntime {
  if (condition.quantization === undefined && condition.decoding === undefined) return model;
  return {
    ...model,
    spec: { ...model.spec, model: quantizedModel(model.spec, condition) },
    params: { ...model.params, ...decodingParams(condition) },
  };
}

/** "sha256:<hex>" of a local file, or the model version a call's response reported; undefined when neither is known. */
export async function trialModelRevision(
  model: ModelRuntime,
  calls: readonly CallRecord[],
): Promise<string | undefined> {
  for (const call of calls) {
    const reported = call.note?.model_revision;
    if (typeof reported === "string" && call.role !== "judge") return reported;
  }
  if (!model.provider.modelRevision) return undefined;
  try {
    return await model.provider.modelRevision(model.spec.model);
  } catch {
    return undefined;
  }
}
