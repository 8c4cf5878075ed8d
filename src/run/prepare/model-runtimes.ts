/**
 * The study's models as runtimes (provider with resilience, parameters, price), and the checks
 * that need them. Kept apart from `run-study.ts` so that `plan`, which builds the providers only
 * to check the cells, does not load the executor and the store.
 */
import { dirname, resolve } from "node:path";
import { fromSpecParams } from "../../models/policy.js";
import { modelPrice } from "../../models/pricing.js";
import { providers } from "../../models/registry.js";
import { resilienceFromSpec, withResilience } from "../../models/resilience.js";
import type { ProviderEnv } from "../../models/types.js";
import type { RateLimit } from "../../contracts/spec.js";
import type { ModelRuntime } from "../execute/types.js";
import { refuseImpossibleCells } from "../plan/plan.js";
import { allItems, type PreparedStudy } from "./study.js";

/** Builds every model of the study, one at a time in spec order, so the first bad entry is the one reported. */
export async function buildModels(
  study: PreparedStudy,
  env: ProviderEnv,
  options: { rateShare?: number } = {},
): Promise<Map<string, ModelRuntime>> {
  const { execution } = study.spec;
  const items = allItems(study);
  const runtimes = new Map<string, ModelRuntime>();
  for (const spec of study.spec.models) {
    const raw = await providers.get(spec.provider).create(spec, env, {
      studySeed: study.spec.seed,
      specDir: dirname(resolve(study.specPath)),
    });
    raw.observeItems?.(items);
    const provider = withResilience(
      raw,
      resilienceFromSpec(execution, workerRateLimit(spec.rate_limit, options.rateShare)),
    );
    runtimes.set(spec.id, {
      spec,
      provider,
      params: fromSpecParams(spec.params),
      price: modelPrice(spec, study.spec.prices),
    });
  }
  return runtimes;
}

/**
 * A model's declared rate limit is per API key; `share` workers using the same key each keep
 * 1/share of it (rpm, tpm and the model's concurrency), so together they stay within it.
 */
export function workerRateLimit(limit: RateLimit | undefined, share = 1): RateLimit | undefined {
  if (!limit || share <= 1) return limit;
  const part = (value: number | undefined) => (value === undefined ? undefined : value / share);
  return {
    ...(limit.rpm !== undefined ? { rpm: part(limit.rpm) } : {}),
    ...(limit.tpm !== undefined ? { tpm: part(limit.tpm) } : {}),
    ...(limit.concurrency !== undefined ? { concurrency: Math.max(1, Math.floor(limit.concurrency / share)) } : {}),
  };
}

/** Refuses cells the study's providers cannot run (see refuseImpossibleCells). */
export function refuseCells(study: PreparedStudy, models: Map<string, ModelRuntime>): void {
  refuseImpossibleCells(study, (id) => {
    const { provider, spec } = models.get(id)!;
    return { capabilities: provider.capabilities(spec.model), scoresContinuations: !!provider.continuationLogprobs };
  });
}

export async function closeModels(models: Map<string, ModelRuntime>): Promise<void> {
  await Promise.all([...models.values()].map((m) => m.provider.close?.()));
}

/**
 * For `plan`: the same refusals as `run`, without calling any model. Building a provider needs
 * its API keys; without them the capability checks cannot run, and the reason is returned
 * (the plan itself does not need keys).
 */
export async function checkCells(study: PreparedStudy, env: ProviderEnv): Promise<string | undefined> {
  let models: Map<string, ModelRuntime>;
  try {
    models = await buildModels(study, env);
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
  try {
    refuseCells(study, models);
    return undefined;
  } finally {
    await closeModels(models);
  }
}
