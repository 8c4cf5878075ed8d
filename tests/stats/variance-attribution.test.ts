import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { RandomStream, varianceAttribution } from "../../src/stats/index.js";

const close = (x: number, y: number, tol = 1e-9) => Math.abs(x - y) <= tol * Math.max(1, Math.abs(y));

interface Row {
  model: string;
  template: string;
  decoding: string;
  few_shot: string;
  score: number;
}

// Produced by tests/fixtures/stats-grid/generate.py (statsmodels ols + anova_lm typ=2, App. F formula).
const reference = JSON.parse(
  readFileSync(fileURLToPath(new URL("../fixtures/stats-grid/references.json", import.meta.url)), "utf8"),
).anovaTypeII as {
  rows: Row[];
  ssTotal: number;
  rss: number;
  dfResidual: number;
  terms: { term: string; ss: number; df: number; etaSq: number; omegaSq: number }[];
  rho: number;
};

function columns(rows: readonly Row[]) {
  return {
    model: rows.map((r) => r.model),
    template: rows.map((r) => r.template),
    decoding: rows.map((r) => r.decoding),
    few_shot: rows.map((r) => r.few_shot),
    score: rows.map((r) => r.score),
  };
}

const MODELS = ["mistral", "qwen", "yi"];
const TEMPLATES = ["T1", "T2", "T3", "T4"];
const DECODINGS = ["greedy", "t0.3", "t0.7"];
const SHOTS = ["0", "3", "5"];

/** A full free-form slice with planted effects per level (index into the level lists) and noise. */
function simulate(seed: number, effects: { model: number[]; template: number[]; decoding: number[] }, sd: number) {
  const stream = RandomStream.fromSeed(seed);
  const rows: Row[] = [];
  MODELS.forEach((model, m) => {
    TEMPLATES.forEach((template, t) => {
      DECODINGS.forEach((decoding, d) => {
        for (const few_shot of SHOTS) {
          const score = 0.6 + effects.model[m] + effects.template[t] + effects.decoding[d] + sd * stream.normal();
          rows.push({ model, template, decoding, few_shot, score });
        }
      });
    });
  });
  return rows;
}

/** Between-level SS of one factor: sum over levels of n_level (mean_level - grand mean)^2. */
function betweenLevelSs(rows: readonly Row[], factor: keyof Row): number {
  const grand = rows.reduce((s, r) => s + r.score, 0) / rows.length;
  const byLevel = new Map<string, number[]>();
  for (const r of rows) byLevel.set(String(r[factor]), [...(byLevel.get(String(r[factor])) ?? []), r.score]);
  let ss = 0;
  for (const values of byLevel.values())
    ss += values.length * (values.reduce((s, v) => s + v, 0) / values.length - grand) ** 2;
  return ss;
}

describe("variance attribution (SafetyRepro App. F, Table 9)", () => {
  it("reproduces statsmodels' Type II table on the App. F formula: SS, df, eta^2, omega^2, rho", () => {
    const out = varianceAttribution(columns(reference.rows));
    assert.ok(close(out.ssTotal, reference.ssTotal), "SS_total");
    assert.equal(out.dfResidual, reference.dfResidual);
    assert.equal(out.terms.length, reference.terms.length);
    for (const expected of reference.terms) {
      const got = out.terms.find((t) => t.term === expected.term);
      assert.ok(got, `term ${expected.term}`);
      assert.equal(got.df, expected.df, `${expected.term} df`);
      assert.ok(close(got.ss, expected.ss), `${expected.term} SS ${got.ss} vs ${expected.ss}`);
      assert.ok(close(got.etaSq, expected.etaSq), `${expected.term} eta^2`);
      assert.ok(close(got.omegaSq, expected.omegaSq), `${expected.term} omega^2`);
    }
    assert.ok(out.rho !== null && close(out.rho, reference.rho), `rho ${out.rho} vs ${reference.rho}`);
    assert.ok(close(out.residualShare, reference.rss / reference.ssTotal), "residual share");
  });

  it("leaves decoding:few_shot out of the model, as the paper's formula does", () => {
    const out = varianceAttribution(columns(reference.rows));
    assert.ok(!out.terms.some((t) => t.term === "decoding:few_shot"), "no decoding:few_shot term");
  });

  it("recovers a planted template effect: template dominates and rho > 1", () => {
    const rows = simulate(
      101,
      { model: [0, 0.02, -0.01], template: [0, -0.1, 0.05, -0.25], decoding: [0, 0, 0] },
      0.03,
    );
    const out = varianceAttribution(columns(rows));
    assert.ok(out.terms.length > 0, "terms");
    const largest = out.terms.reduce((best, t) => (t.etaSq > best.etaSq ? t : best));
    assert.equal(largest.term, "template");
    const omegas = Object.entries(out.implementationOmegaSq);
    assert.equal(omegas.length, 3);
    assert.equal(omegas.reduce((best, e) => (e[1] > best[1] ? e : best))[0], "template");
    assert.ok(out.rho !== null && out.rho > 1, `rho ${out.rho}`);
  });

  it("recovers a planted model effect: rho < 1", () => {
    const rows = simulate(202, { model: [0, 0.2, -0.15], template: [0, 0.01, 0, -0.01], decoding: [0, 0.01, 0] }, 0.03);
    const out = varianceAttribution(columns(rows));
    assert.ok(out.rho !== null && out.rho < 1, `rho ${out.rho}`);
    assert.ok(out.modelShare > out.implementationShare, "model share dominates");
  });

  it("on a balanced grid: main-effect eta^2 are between-level SS shares and the four shares sum to 1", () => {
    const rows = simulate(303, { model: [0, 0.05, 0], template: [0, 0.1, 0, -0.1], decoding: [0, 0.02, 0.04] }, 0.05);
    const out = varianceAttribution(columns(rows));
    for (const factor of ["model", "template", "decoding", "few_shot"] as const) {
      const eta = out.terms.find((t) => t.term === factor)?.etaSq ?? Number.NaN;
      assert.ok(close(eta, betweenLevelSs(rows, factor) / out.ssTotal), `${factor} eta^2`);
    }
    const total = out.modelShare + out.implementationShare + out.interactionShare + out.residualShare;
    assert.ok(close(total, 1), `shares sum to ${total}`);
    for (const t of out.terms) {
      const expected = Math.max((t.ss - t.df * out.msResidual) / (out.ssTotal + out.msResidual), 0);
      assert.ok(close(t.omegaSq, expected), `${t.term} omega^2 (Hays)`);
    }
  });

  it("Type III (App. H) equals Type II on a balanced grid", () => {
    const rows = simulate(404, { model: [0, 0.05, 0], template: [0, 0.1, 0, -0.1], decoding: [0, 0.02, 0.04] }, 0.05);
    const two = varianceAttribution(columns(rows));
    const three = varianceAttribution(columns(rows), { sums: "III" });
    assert.equal(three.sums, "III");
    assert.equal(three.terms.length, two.terms.length);
    two.terms.forEach((t, k) => {
      assert.ok(close(three.terms[k].ss, t.ss, 1e-8), `${t.term}`);
    });
    assert.ok(two.rho !== null && three.rho !== null && close(three.rho, two.rho, 1e-8), "rho");
  });
});
