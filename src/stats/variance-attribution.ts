// Variance attribution of one benchmark's free-form slice (SafetyRepro App. F, Table 9, App. H):
// an OLS ANOVA of score on model and the implementation axes, eta^2 and Hays omega^2 per term,
// and rho = implementation share / model share. The fit and the ANOVA tables are src/stats/models.
import { type AnovaResult, type AnovaRow, anova, preparedTypeTwoAnova } from "./models/anova.js";
import { EstimabilityError, type Table } from "./models/design.js";

export interface VarianceAttributionOptions {
  /** Response column (default "score"). */
  response?: string;
  /** The model-identity column (default "model"). */
  model?: string;
  /** Implementation axes whose eta^2 make up the numerator of rho (default template, decoding, few_shot). */
  implementation?: readonly string[];
  /**
   * Two-way interactions in the model (default App. F: model x each implementation axis, and
   * template:decoding, template:few_shot; decoding:few_shot is NOT in the paper's formula).
   */
  interactions?: readonly string[];
  /** Sums of squares: "II" (the paper's headline) or "III" (App. H robustness check). Default "II". */
  sums?: "II" | "III";
  /** A rank-deficient design: "error" (default) or "drop" the aliased columns (see AnovaSpec). */
  aliased?: "error" | "drop";
}

export interface AxisShare {
  term: string;
  df: number;
  ss: number;
  /** Raw eta^2 = SS / SS_total. */
  etaSq: number;
  /** Hays omega^2 = max((SS - df MS_W) / (SS_total + MS_W), 0). */
  omegaSq: number;
}

export interface VarianceAttribution {
  sums: "II" | "III";
  nObs: number;
  ssTotal: number;
  dfResidual: number;
  msResidual: number;
  /** Every term of the model, in model order. */
  terms: AxisShare[];
  /** eta^2 of the model main effect. */
  modelShare: number;
  /** Sum of the implementation axes' eta^2. */
  implementationShare: number;
  /** Sum of eta^2 over all included two-way interactions (model x * included). */
  interactionShare: number;
  /** SS_residual / SS_total. */
  residualShare: number;
  /** rho = implementationShare / modelShare; null when the model share is 0. */
  rho: number | null;
  /** omega^2 of each implementation axis alone (Fig. 3's per-axis breakdown). */
  implementationOmegaSq: Record<string, number>;
}

export const PAPER_IMPLEMENTATION_AXES = ["template", "decoding", "few_shot"] as const;

/** The App. F formula's two-way interactions for a model column and three implementation axes. */
export function paperInteractions(model: string, implementation: readonly string[]): string[] {
  const [template, decoding, fewShot] = implementation;
  return [...implementation.map((axis) => `${model}:${axis}`), `${template}:${decoding}`, `${template}:${fewShot}`];
}

/**
 * score ~ C(model) + C(template) + C(decoding) + C(few_shot) + model:template + model:decoding
 *   + model:few_shot + template:decoding + template:few_shot (App. F), fitted on the rows given
 * (the caller passes one benchmark's free-form slice, where scoring and quantization are constant).
 * Shares are raw eta^2 against the corrected total SS; in a balanced full grid the Type II shares
 * of model, implementation, interactions and residual sum to 1.
 */
export function varianceAttribution(table: Table, options: VarianceAttributionOptions = {}): VarianceAttribution {
  const spec = attributionSpec(options);
  const result = anova(table, { response: spec.response, terms: spec.terms, aliased: options.aliased ?? "error" });
  const rows = spec.sums === "II" ? result.type2 : result.type3;
  if (rows.length === 0) throw new EstimabilityError("Type III sums are not defined on a rank-deficient design");
  return attributionOf(spec, result, rows);
}

/**
 * rho alone under changing row weights: only the Type II rows of the model and the
 * implementation axes are fitted (the interactions' rows, half the sub-models, are not needed).
 */
export function preparedVarianceRatio(
  table: Table,
  options: Omit<VarianceAttributionOptions, "sums" | "aliased"> = {},
): (weights: ArrayLike<number>) => number | null {
  const spec = attributionSpec({ ...options, sums: "II" });
  const fit = preparedTypeTwoAnova(table, { response: spec.response, terms: spec.terms });
  const wanted = new Set([spec.model, ...spec.implementation]);
  return (weights) => {
    const rows = fit(weights, wanted).type2;
    const eta = (term: string) => rows.find((r) => r.term === term)?.etaSq ?? Number.NaN;
    const model = eta(spec.model);
    const implementation = spec.implementation.reduce((total, axis) => total + eta(axis), 0);
    return model > 0 ? implementation / model : null;
  };
}

function attributionSpec(options: VarianceAttributionOptions) {
  const response = options.response ?? "score";
  const model = options.model ?? "model";
  const implementation = options.implementation ?? PAPER_IMPLEMENTATION_AXES;
  const interactions = options.interactions ?? paperInteractions(model, implementation);
  const sums = options.sums ?? "II";
  return { response, model, implementation, interactions, sums, terms: [model, ...implementation, ...interactions] };
}

function attributionOf(
  spec: ReturnType<typeof attributionSpec>,
  result: Pick<AnovaResult, "nObs" | "ssTotal" | "dfResidual" | "msResidual" | "rss">,
  table: readonly AnovaRow[],
): VarianceAttribution {
  const { model, implementation, interactions, sums } = spec;
  const rows = table.filter((row) => row.term !== "Intercept");
  const shares = rows.map(axisShare);
  const etaOf = (term: string) => shareOf(shares, term).etaSq;
  const modelShare = etaOf(model);
  const implementationShare = implementation.reduce((total, axis) => total + etaOf(axis), 0);
  const interactionShare = interactions.reduce((total, term) => total + etaOf(term), 0);
  return {
    sums,
    nObs: result.nObs,
    ssTotal: result.ssTotal,
    dfResidual: result.dfResidual,
    msResidual: result.msResidual,
    terms: shares,
    modelShare,
    implementationShare,
    interactionShare,
    residualShare: result.rss / result.ssTotal,
    rho: modelShare > 0 ? implementationShare / modelShare : null,
    implementationOmegaSq: Object.fromEntries(implementation.map((axis) => [axis, shareOf(shares, axis).omegaSq])),
  };
}

function axisShare(row: AnovaRow): AxisShare {
  return { term: row.term, df: row.df, ss: row.ss, etaSq: row.etaSq ?? Number.NaN, omegaSq: row.omegaSq ?? Number.NaN };
}

function shareOf(terms: readonly AxisShare[], term: string): AxisShare {
  const found = terms.find((t) => t.term === term);
  if (!found) throw new Error(`term '${term}' is not in the ANOVA table`);
  return found;
}
