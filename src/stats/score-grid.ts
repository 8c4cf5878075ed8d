// The per-benchmark score grid shared by the ranking metrics: one score per (configuration,
// model) over the configurations C_b evaluated on every model (SafetyRepro §5.1).

export interface ModelScoreGrid {
  /** Model names; their code-point order is the alphabetical tie-break order. */
  readonly models: readonly string[];
  /** scores[c][m]: score of models[m] under configuration c. */
  readonly scores: readonly (readonly number[])[];
}

/** Checks that every configuration has one finite score per model; returns (configs, models). */
export function assertScoreGrid(grid: ModelScoreGrid, minimumModels = 2): { configurations: number; models: number } {
  const models = grid.models.length;
  if (models < minimumModels) throw new RangeError(`need at least ${minimumModels} models, got ${models}`);
  if (new Set(grid.models).size !== models) throw new RangeError("model names must be distinct");
  if (grid.scores.length === 0) throw new RangeError("the grid has no configurations");
  grid.scores.forEach((row, c) => {
    if (row.length !== models) throw new RangeError(`configuration ${c} has ${row.length} scores for ${models} models`);
    row.forEach((s, m) => {
      if (!Number.isFinite(s)) throw new RangeError(`score of ${grid.models[m]} at configuration ${c} is not finite`);
    });
  });
  return { configurations: grid.scores.length, models };
}

/** The column of one model: its score under each configuration. */
export function modelScores(grid: ModelScoreGrid, model: number): number[] {
  return grid.scores.map((row) => row[model]);
}

/**
 * The induced total ordering of the models under one configuration, best (highest score) first,
 * with tied models in alphabetical order: the paper's deterministic tie-break, used only for the
 * total ordering (§4, end of Prop. 1; App. X).
 */
export function inducedOrdering(models: readonly string[], scores: readonly number[]): string[] {
  return models
    .map((name, m) => ({ name, score: scores[m] }))
    .sort((a, b) => b.score - a.score || compareCodePoints(a.name, b.name))
    .map((entry) => entry.name);
}

function compareCodePoints(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** n! for the small model counts of a roster (exact in a double up to 18!). */
export function factorial(n: number): number {
  if (!(Number.isInteger(n) && n >= 0)) throw new RangeError(`factorial needs a non-negative integer, got ${n}`);
  let out = 1;
  for (let k = 2; k <= n; k++) out *= k;
  return out;
}

/** The grid restricted to the configurations at `indices` (in that order). */
export function selectConfigurations(grid: ModelScoreGrid, indices: readonly number[]): ModelScoreGrid {
  for (const c of indices) {
    if (!(Number.isInteger(c) && c >= 0 && c < grid.scores.length))
      throw new RangeError(`configuration ${c} out of range`);
  }
  return { models: grid.models, scores: indices.map((c) => grid.scores[c]) };
}

/**
 * Indices of the parse-clean configurations: those where every model's parse rate is at least
 * `minimum` (App. D and §5.1: 0.95). parseRates[c][m] is aligned with the grid's scores; a
 * logprob configuration, with nothing to parse, should be given rate 1 by the caller.
 */
export function parseCleanConfigurations(parseRates: readonly (readonly number[])[], minimum = 0.95): number[] {
  const clean: number[] = [];
  parseRates.forEach((row, c) => {
    if (row.length === 0) throw new RangeError(`configuration ${c} has no parse rates`);
    if (row.every((rate) => rate >= minimum)) clean.push(c);
  });
  return clean;
}
