/**
 * Reading a scaffold's facet settings and the decoding defaults every scaffold applies.
 */
import * as z from "zod";
import type { GenerationParams } from "../contracts/provider.js";
import { InputError } from "../core/errors.js";
import type { ScaffoldSettings } from "./types.js";

/**
 * A scaffold's settings schema: its own settings plus `max_tokens`, which every scaffold reads
 * through callParams. Strict, so a misspelt setting is an error at load, not silently ignored.
 */
export function scaffoldSettings(own: z.ZodRawShape = {}): z.ZodObject {
  return z.object({ max_tokens: z.number().int().min(1).optional(), ...own }).strict();
}

/** An optional integer setting within [min, max] (the bounds intSetting enforces at run time; null = default). */
export function intRange(min: number, max: number): z.ZodOptional<z.ZodNullable<z.ZodNumber>> {
  return z.number().int().min(min).max(max).nullish();
}

/** Output-token ceilings when neither the scaffold settings nor the model's params set one. */
export const DEFAULT_MAX_TOKENS = { direct: 1024, scaffolded: 2048 } as const;

/**
 * Per-call parameter overrides: max_tokens from the scaffold settings, else the model's, else
 * the default for the scaffold kind; temperature 0 unless the model sets one (ScaffoldSafety
 * 3.3). The provider's policy still drops and records what a model does not accept.
 */
export function callParams(
  modelParams: GenerationParams,
  settings: ScaffoldSettings,
  kind: keyof typeof DEFAULT_MAX_TOKENS,
): Partial<GenerationParams> {
  const fromSettings = settings.max_tokens;
  if (
    fromSettings !== undefined &&
    (typeof fromSettings !== "number" || !Number.isInteger(fromSettings) || fromSettings < 1)
  ) {
    throw new InputError(`scaffold setting max_tokens must be a positive integer, not ${JSON.stringify(fromSettings)}`);
  }
  return {
    maxTokens: (fromSettings as number | undefined) ?? modelParams.maxTokens ?? DEFAULT_MAX_TOKENS[kind],
    temperature: modelParams.temperature ?? 0,
  };
}

/** An integer setting within [min, max], or its default when absent. */
export function intSetting(
  settings: ScaffoldSettings,
  key: string,
  /** The default, and the range a given value must fall in. */
  bounds: { fallback: number; min: number; max: number },
): number {
  const { fallback, min, max } = bounds;
  const value = settings[key];
  if (value === undefined || value === null) return fallback;
  if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) {
    throw new InputError(
      `scaffold setting ${key} must be an integer from ${min} to ${max}, not ${JSON.stringify(value)}`,
    );
  }
  return value;
}

/** A string setting among `allowed`, or its default when absent. */
export function choiceSetting<T extends string>(
  settings: ScaffoldSettings,
  key: string,
  fallback: T,
  allowed: readonly T[],
): T {
  const value = settings[key];
  if (value === undefined || value === null) return fallback;
  if (typeof value !== "string" || !allowed.includes(value as T)) {
    throw new InputError(`scaffold setting ${key} must be one of ${allowed.join(", ")}, not ${JSON.stringify(value)}`);
  }
  return value as T;
}

/** A boolean setting, or its default when absent. */
export function boolSetting(settings: ScaffoldSettings, key: string, fallback: boolean): boolean {
  const value = settings[key];
  if (value === undefined || value === null) return fallback;
  if (typeof value !== "boolean") throw new InputError(`scaffold setting ${key} must be true or false`);
  return value;
}
