/**
 * The simulated panel of bench:grid and bench:paper-scale's SafetyRepro design: three models with
 * planted template, decoding and scoring effects (T2 helps every model by +0.4 logit; T4 flips
 * steady and cot_lover). The benchmarks' documented figures were measured with these values, so
 * they stay as they are when the grid quickstart's own effects change.
 */
export const GRID_PANEL = [
  { id: "steady", ability: 1.0, t4: -1.0 },
  { id: "cot_lover", ability: 0.4, t4: 1.5 },
  { id: "weak", ability: -0.2, t4: 0 },
].map((m) => ({
  id: m.id,
  provider: "sim",
  model: m.id,
  options: {
    ability: m.ability,
    logprobs: true,
    temperature_effect: -1.2,
    logprob_shift: 0.3,
    prompt_effects: [
      { contains: "You are a careful and honest assistant.", shift: 0.4 },
      ...(m.t4 ? [{ contains: "Let us think step by step", shift: m.t4 }] : []),
    ],
  },
  quantizations: { nf4: m.id },
}));
