// Checks the model adapters against the golden fixtures directly (independent of the shared
// golden runner), so fits can be iterated on alone. Skips when the fixtures are absent.
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { modelProcedures } from "./golden/model-procedures.js";
import type { GoldenFixture } from "./golden/types.js";

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const goldenDir = process.env.PARALLAX_GOLDEN_DIR ?? resolve(repoRoot, "../shared/golden");

interface Tolerance {
  rtol: number;
  atol: number;
}

/** The tolerance for a path: per-group fixtures (06) key tolerances by the leaf name's group. */
function toleranceFor(tolerance: Record<string, unknown>, path: string[]): Tolerance {
  if (typeof tolerance.rtol === "number") return tolerance as unknown as Tolerance;
  const groups = tolerance as Record<string, Tolerance>;
  const leaf = [...path].reverse().find((p) => Number.isNaN(Number(p))) ?? "";
  const group =
    leaf === "estimate"
      ? "fixed_effects"
      : leaf === "aic" || leaf === "bic" || leaf === "minus2loglik"
        ? "aic_bic"
        : path.includes("lrt_m0_vs_m1") && leaf === "chi2"
          ? "lrt_chi2"
          : path.includes("lrt_m0_vs_m1") && leaf === "p"
            ? "lrt_p"
            : leaf === "se_rx_conditional"
              ? "se"
              : leaf === "random_intercept_sd" || leaf === "theta"
                ? "random_intercept_variance"
                : leaf;
  return groups[group] ?? { rtol: 1e-9, atol: 1e-12 };
}

interface Mismatch {
  path: string;
  expected: unknown;
  actual: unknown;
}

/** Walks `expected`; numbers compare under the tolerance rule, other leaves must be equal. */
function compare(
  expected: unknown,
  actual: unknown,
  path: string[],
  tol: Record<string, unknown>,
  out: Mismatch[],
  worst: { rel: number; path: string },
) {
  const here = path.join(".");
  if (typeof expected === "number") {
    const t = toleranceFor(tol, path);
    const ok = typeof actual === "number" && Math.abs(actual - expected) <= t.atol + t.rtol * Math.abs(expected);
    if (!ok) out.push({ path: here, expected, actual });
    else if (expected !== 0) {
      const rel = Math.abs((actual as number) - expected) / Math.abs(expected);
      if (rel > worst.rel) Object.assign(worst, { rel, path: here });
    }
    return;
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual) || actual.length !== expected.length) {
      out.push({ path: here, expected: `array(${expected.length})`, actual });
      return;
    }
    expected.forEach((e, i) => {
      compare(e, actual[i], [...path, String(i)], tol, out, worst);
    });
    return;
  }
  if (expected !== null && typeof expected === "object") {
    if (actual === null || typeof actual !== "object") {
      out.push({ path: here, expected: "object", actual });
      return;
    }
    for (const [key, value] of Object.entries(expected)) {
      compare(value, (actual as Record<string, unknown>)[key], [...path, key], tol, out, worst);
    }
    return;
  }
  if (expected !== actual) out.push({ path: here, expected, actual });
}

/** Diagnostic-only keys of fixture 06 that describe the reference fits, not the procedure. */
const DIAGNOSTIC_KEYS = new Set([
  "reference_fit",
  "optimizer_fits_vs_reference",
  "other_approximations_for_diagnosis",
  "chi2_lme4_default_control",
]);

function withoutDiagnostics(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutDiagnostics);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([k]) => !DIAGNOSTIC_KEYS.has(k))
      .map(([k, v]) => [k, withoutDiagnostics(v)]),
  );
}

const fixtures: GoldenFixture[] = existsSync(goldenDir)
  ? readdirSync(goldenDir)
      .filter((f) => f.endsWith(".json") && /^\d\d_/.test(f))
      .map((file) => ({ file, dir: goldenDir, ...JSON.parse(readFileSync(join(goldenDir, file), "utf8")) }))
      .filter((f: GoldenFixture) => f.procedure in modelProcedures)
  : [];

describe("golden model fixtures", () => {
  if (fixtures.length === 0) {
    it("skipped", { skip: `golden fixtures not found at ${goldenDir} (set PARALLAX_GOLDEN_DIR)` }, () => {});
    return;
  }
  for (const fixture of fixtures) {
    it(`${fixture.file} (${fixture.procedure})`, () => {
      // The adapter gets the fixture without `expected`, so it cannot read it.
      const { expected, ...rest } = fixture;
      const actual = modelProcedures[fixture.procedure]({ ...rest, expected: undefined });
      const mismatches: Mismatch[] = [];
      const worst = { rel: 0, path: "" };
      compare(withoutDiagnostics(expected), actual, [], fixture.tolerance, mismatches, worst);
      if (process.env.PARALLAX_GOLDEN_VERBOSE)
        console.log(`${fixture.file}: worst relative error ${worst.rel.toExponential(2)} at ${worst.path}`);
      assert.deepEqual(mismatches.slice(0, 10), [], `${mismatches.length} mismatches`);
    });
  }
});
