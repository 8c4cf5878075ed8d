/**
 * Judges for LLM-as-judge scoring: resolved from the spec's `scoring.judges` (model specs, or ids
 * of models in `models`), called through the same providers and resilience wrapper as subjects.
 * A judge never scores its own model's responses: each subject gets the first listed judge that
 * is not the same model (same id, or same provider, model and endpoint), and a spec where some
 * subject has no such judge is refused before anything is written.
 */
import type { Item } from "../../contracts/item.js";
import type { ModelSpec, StudySpec } from "../../contracts/spec.js";
import { InputError } from "../../core/errors.js";
import { fromSpecParams } from "../../models/policy.js";
import { costUsd, modelPrice } from "../../models/pricing.js";
import { providers } from "../../models/registry.js";
import { resilienceFromSpec, withResilience } from "../../models/resilience.js";
import type { ProviderEnv } from "../../models/types.js";
import type { JudgeFn } from "../../scoring/types.js";
import { cacheKey } from "../execute/cache-key.js";
import type { ModelRuntime } from "../execute/types.js";
import type { TrialStore } from "../store/types.js";

/** Judge calls are graded at temperature 0 with room for a short JSON verdict. */
const JUDGE_DEFAULTS = { temperature: 0, maxTokens: 400 } as const;

/** The max_tokens a judge's calls are sent with: its spec's, else room for a short verdict. */
export function judgeMaxTokens(spec: ModelSpec): number {
  return spec.params.max_tokens ?? JUDGE_DEFAULTS.maxTokens;
}

export interface JudgeRuntime {
  id: string;
  spec: ModelSpec;
  call: JudgeFn;
  /** Cost of a call's usage at the judge's price (0 when unknown). */
  cost(usage: { inputTokens: number; outputTokens: number }): number;
  close(): Promise<void>;
}

/** A judge reference resolved to a model spec (an id names a model of the study). */
export function resolveJudgeRef(spec: StudySpec, ref: string | ModelSpec, where: string): ModelSpec {
  if (typeof ref !== "string") return ref;
  const model = spec.models.find((m) => m.id === ref);
  if (!model) throw new InputError(`${where}: '${ref}' is not the id of a model in 'models'`);
  return model;
}

/** Whether the spec declares judges (scoring.judges): only then does a run load its judging. */
export function hasJudges(spec: StudySpec): boolean {
  return (spec.scoring?.judges ?? []).length > 0;
}

export function judgeSpecs(spec: StudySpec): ModelSpec[] {
  return (spec.scoring?.judges ?? []).map((ref, i) => resolveJudgeRef(spec, ref, `scoring.judges[${i}]`));
}

/** Whether two specs are the same model: same id, or same provider, model and endpoint. */
export function sameModel(a: ModelSpec, b: ModelSpec): boolean {
  if (a.id === b.id) return true;
  return a.provider === b.provider && a.model === b.model && (a.base_url ?? null) === (b.base_url ?? null);
}

/** The judges allowed to score a subject's responses, in preference order. */
export function admissibleJudges(subject: ModelSpec, judges: readonly ModelSpec[]): ModelSpec[] {
  return judges.filter((j) => !sameModel(j, subject));
}

export interface JudgeAssignment {
  primary: ModelSpec;
  validation: ModelSpec | undefined;
}

/** Primary and validation judge of each subject model; throws InputError when a judge would score itself. */
export function assignJudges(spec: StudySpec): Map<string, JudgeAssignment> {
  const judges = judgeSpecs(spec);
  const explicit = spec.scoring?.validation?.judge;
  const validationJudge =
    explicit === undefined ? undefined : resolveJudgeRef(spec, explicit, "scoring.validation.judge");
  const out = new Map<string, JudgeAssignment>();
  if (judges.length === 0) return out;
  for (const subject of spec.models) {
    const admissible = admissibleJudges(subject, judges);
    if (admissible.length === 0) {
      throw new InputError(
        `judge '${judges.map((j) => j.id).join("', '")}' is the subject model '${subject.id}': a model never judges its own responses; add a judge from another model`,
      );
    }
    if (validationJudge && sameModel(validationJudge, subject)) {
      throw new InputError(
        `validation judge '${validationJudge.id}' is the subject model '${subject.id}': a model never judges its own responses`,
      );
    }
    const validation =
      validationJudge ?? (spec.scoring?.validation ? admissible.find((j) => !sameModel(j, admissible[0])) : undefined);
    if (validation && sameModel(validation, admissible[0])) {
      throw new InputError(`validation judge '${validation.id}' is the primary judge: validation needs a second judge`);
    }
    out.set(subject.id, { primary: admissible[0], validation });
  }
  return out;
}

/**
 * Builds a judge's call function on its provider, with the study's retries and rate limits. With
 * `cache` (the run's store), replies go through the response cache under the same key as a
 * judge sub-call of `parallax run` (cache-key.ts), so re-judging a response the run (or an
 * interrupted round) already paid for costs nothing; the simulated panel is never cached.
 */
export async function buildJudge(
  spec: ModelSpec,
  study: StudySpec,
  env: ProviderEnv,
  options: { cache?: Pick<TrialStore, "cacheGet" | "cachePut">; specDir?: string } = {},
): Promise<JudgeRuntime> {
  const { cache, specDir } = options;
  const raw = await providers.get(spec.provider).create(spec, env, { studySeed: study.seed, specDir });
  const provider = withResilience(raw, resilienceFromSpec(study.execution, spec.rate_limit));
  const params = { ...JUDGE_DEFAULTS, ...fromSpecParams(spec.params) };
  const price = modelPrice(spec, study.prices);
  const useCache = cache !== undefined && !provider.simulated;
  return {
    id: spec.id,
    spec,
    call: async (messages, attempt = 1) => {
      const key = cacheKey({ spec, provider }, { messages, params, attempt });
      const hit = useCache ? await cache.cacheGet(key) : undefined;
      const result = hit ?? (await provider.generate({ model: spec.model, messages, params }));
      if (useCache && !hit) await cache.cachePut(key, result);
      return { text: result.text, usage: result.usage, cached: hit !== undefined };
    },
    cost: (usage) => (price ? costUsd(usage, price).usd : 0),
    close: async () => {
      await provider.close?.();
    },
  };
}

/**
 * A judge as a model of the run (`parallax run` judges open-ended trials as their sub-calls):
 * its provider with the study's retries and rate limits, the judge defaults under its own params,
 * its price (judge calls are charged to the run's budget), and the study's items as the answer
 * key of a simulated judge.
 */
export async function buildJudgeModel(
  spec: ModelSpec,
  study: StudySpec,
  env: ProviderEnv,
  /** The study's items (a simulated judge's answer key) and the folder its spec was read from. */
  source: { items: readonly Item[]; specDir?: string },
): Promise<ModelRuntime> {
  const { items, specDir } = source;
  const raw = await providers.get(spec.provider).create(spec, env, { studySeed: study.seed, specDir });
  raw.observeItems?.(items);
  return {
    spec,
    provider: withResilience(raw, resilienceFromSpec(study.execution, spec.rate_limit)),
    params: { ...JUDGE_DEFAULTS, ...fromSpecParams(spec.params) },
    price: modelPrice(spec, study.prices),
  };
}
