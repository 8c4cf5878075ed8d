/**
 * `analyze` on the golden obs_main.csv (imported as a tidy table) reproduces the golden GLM
 * fixtures: 03 (outcome ~ config + model + benchmark, cluster-robust by case) and 04 (with
 * config x model). Directory: $PARALLAX_GOLDEN_DIR, else ../shared/golden next to the repo.
 */
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, it } from "node:test";
import { analyzeTableFile, normalizePlan } from "../../src/analysis/index.js";
import { runCli } from "../helpers/cli.js";

const repoRoot = resolve(import.meta.dirname, "..", "..");
const goldenDir = resolve(process.env.PARALLAX_GOLDEN_DIR ?? join(repoRoot, "../shared/golden"));
const csv = join(goldenDir, "obs_main.csv");

function close(actual: number, expected: number, what: string, rtol = 1e-6, atol = 1e-9): void {
  assert.ok(
    Math.abs(actual - expected) <= atol + rtol * Math.abs(expected),
    `${what}: ${actual} vs golden ${expected}`,
  );
}

interface GoldenCoefficient {
  name: string;
  odds_ratio: number;
  or_ci95_cluster: [number, number];
  p_cluster: number;
}

function fixture(name: string) {
  return JSON.parse(readFileSync(join(goldenDir, name), "utf8")).expected as {
    coefficients: GoldenCoefficient[];
    tests: Record<string, { terms: string[]; cluster: { chi2: number; df: number; p: number } }>;
  };
}

if (!existsSync(csv)) {
  describe("golden GLM fixtures through analyze", () => {
    it(`skipped: ${csv} not found (set PARALLAX_GOLDEN_DIR)`, { skip: true }, () => {});
  });
} else {
  describe("golden GLM fixtures through analyze", async () => {
    // Reference config `direct`, every row (parse failures count 0: ITT), clusters = case_id.
    const plan = normalizePlan({ bootstrap: { resamples: 200 }, specification_curve: false });
    const { analysis } = await analyzeTableFile(csv, { plan });
    const main = fixture("03_glm_logit_main_effects.json");
    const interaction = fixture("04_glm_logit_config_x_model.json");

    it("finds the design: config compared with direct, one cluster per case", () => {
      // Counted from the CSV itself, so the test holds for fixture sets of other sizes too.
      const lines = readFileSync(csv, "utf8").trim().split("\n").slice(1);
      const cases = new Set(lines.map((line) => line.split(",")[3]));
      assert.equal(analysis.meta.comparisonFacet, "config");
      assert.equal(analysis.meta.reference, "direct");
      assert.equal(analysis.counts.analysed, lines.length);
      assert.equal(analysis.counts.clusters, cases.size);
      assert.equal(analysis.contrasts.itt.pooled.formula, "outcome ~ config + model + benchmark");
    });

    it("reproduces fixture 03: config odds ratios, cluster CIs, p-values and the 3-df Wald test", () => {
      for (const contrast of analysis.contrasts.itt.pooled.contrasts) {
        const golden = main.coefficients.find((c) => c.name === `config[T.${contrast.condition}]`)!;
        assert.ok(!("error" in contrast.oddsRatio));
        close(contrast.oddsRatio.estimate, golden.odds_ratio, `OR ${contrast.condition}`);
        close(contrast.oddsRatio.ci95[0], golden.or_ci95_cluster[0], `OR lower ${contrast.condition}`);
        close(contrast.oddsRatio.ci95[1], golden.or_ci95_cluster[1], `OR upper ${contrast.condition}`);
        close(contrast.oddsRatio.p, golden.p_cluster, `p ${contrast.condition}`);
      }
      const omnibus = analysis.hypotheses.omnibus;
      assert.ok(omnibus && "chi2" in omnibus);
      const golden = main.tests.config_all_zero.cluster;
      close(omnibus.chi2, golden.chi2, "Wald chi2");
      assert.equal(omnibus.df, golden.df);
      close(omnibus.p, golden.p, "Wald p");
    });

    it("reproduces fixture 04: the 15-df config x model Wald test, its coefficients and the config block", () => {
      const block = analysis.hypotheses.interactions.find((i) => i.with === "model")!;
      assert.ok(block.test && block.mainEffectInModel);
      const golden = interaction.tests.config_x_model_all_zero.cluster;
      close(block.test.chi2, golden.chi2, "interaction chi2");
      assert.equal(block.test.df, 15);
      close(block.test.p, golden.p, "interaction p");
      const mainBlock = interaction.tests.config_main_all_zero.cluster;
      close(block.mainEffectInModel.chi2, mainBlock.chi2, "config block chi2 in the interaction model");
      close(block.mainEffectInModel.p, mainBlock.p, "config block p in the interaction model");
      assert.equal(block.coefficients.length, 15);
      for (const c of block.coefficients) {
        const g = interaction.coefficients.find((x) => x.name === c.name)!;
        close(c.oddsRatio, g.odds_ratio, `OR ${c.name}`);
        close(c.ci95[0], g.or_ci95_cluster[0], `OR lower ${c.name}`);
        close(c.p, g.p_cluster, `p ${c.name}`);
      }
    });

    it("the CLI prints the same odds ratios and writes the JSON result", () => {
      const out = join(mkdtempSync(join(tmpdir(), "parallax-golden-")), "analysis.json");
      const plan = join(repoRoot, "tests", "fixtures", "analysis", "fast-plan.yaml");
      const result = runCli(["analyze", csv, "--json", "--out", out, "--plan", plan]);
      assert.equal(result.status, 0, result.stderr);
      const json = JSON.parse(result.stdout);
      const mr = json.analysis.contrasts.itt.pooled.contrasts.find(
        (c: { condition: string }) => c.condition === "map_reduce",
      );
      close(
        mr.oddsRatio.estimate,
        main.coefficients.find((c) => c.name === "config[T.map_reduce]")!.odds_ratio,
        "CLI OR",
      );
      assert.deepEqual(JSON.parse(readFileSync(out, "utf8")).scorecard.title, "Scaffold Safety Scorecard");
    });
  });
}
