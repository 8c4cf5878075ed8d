/**
 * `analyze` on the golden obs_main.csv (imported as a tidy table) reproduces the golden GLM
 * fixtures: 03 (outcome ~ config + model + benchmark, cluster-robust by case) and 04 (with
 * config x model), and 02's case counted from the CSV (the App. P Wald interval). Directory:
 * $PARALLAX_GOLDEN_DIR, else ../shared/golden next to the repo.
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

    // Sizes, dfs and names come from the fixtures and the CSV, so other seeds and sizes work too.
    const csvLines = readFileSync(csv, "utf8").trim().split("\n");
    const header = csvLines[0].split(",");
    const levelsOf = (column: string) =>
      [...new Set(csvLines.slice(1).map((line) => line.split(",")[header.indexOf(column)]))].sort();
    const configs = levelsOf("config");
    const models = levelsOf("model");

    it("finds the design: config compared with direct, one cluster per case", () => {
      // Counted from the CSV itself, so the test holds for fixture sets of other sizes too.
      const lines = csvLines.slice(1);
      const cases = levelsOf("case_id");
      assert.equal(analysis.meta.comparisonFacet, "config");
      assert.equal(analysis.meta.reference, "direct");
      assert.equal(analysis.counts.analysed, lines.length);
      assert.equal(analysis.counts.clusters, cases.length);
      assert.equal(analysis.contrasts.itt.pooled.formula, "outcome ~ config + model + benchmark");
    });

    it("reproduces fixture 03: config odds ratios, cluster CIs, p-values and the config Wald test", () => {
      const contrasts = analysis.contrasts.itt.pooled.contrasts;
      // Every non-reference config, each a coefficient of the fixture's config test.
      assert.ok(contrasts.length > 0, "expected contrasts.length > 0");
      assert.equal(contrasts.length, main.tests.config_all_zero.terms.length);
      assert.equal(contrasts.length, configs.length - 1);
      for (const contrast of contrasts) {
        const golden = main.coefficients.find((c) => c.name === `config[T.${contrast.condition}]`);
        assert.ok(golden, `fixture 03 has config[T.${contrast.condition}]`);
        assert.ok(!("error" in contrast.oddsRatio), 'expected !("error" in contrast.oddsRatio)');
        close(contrast.oddsRatio.estimate, golden.odds_ratio, `OR ${contrast.condition}`);
        close(contrast.oddsRatio.ci95[0], golden.or_ci95_cluster[0], `OR lower ${contrast.condition}`);
        close(contrast.oddsRatio.ci95[1], golden.or_ci95_cluster[1], `OR upper ${contrast.condition}`);
        close(contrast.oddsRatio.p, golden.p_cluster, `p ${contrast.condition}`);
      }
      const omnibus = analysis.hypotheses.omnibus;
      assert.ok(omnibus && "chi2" in omnibus, 'expected omnibus && "chi2" in omnibus');
      const golden = main.tests.config_all_zero.cluster;
      close(omnibus.chi2, golden.chi2, "Wald chi2");
      assert.equal(omnibus.df, golden.df);
      close(omnibus.p, golden.p, "Wald p");
    });

    it("reproduces fixture 04: the config x model Wald test, its coefficients and the config block", () => {
      const block = analysis.hypotheses.interactions.find((i) => i.with === "model")!;
      assert.ok(block.test && block.mainEffectInModel, "expected block.test && block.mainEffectInModel");
      const golden = interaction.tests.config_x_model_all_zero.cluster;
      close(block.test.chi2, golden.chi2, "interaction chi2");
      assert.equal(block.test.df, golden.df);
      assert.equal(golden.df, (configs.length - 1) * (models.length - 1), "df from the CSV's levels");
      close(block.test.p, golden.p, "interaction p");
      const mainBlock = interaction.tests.config_main_all_zero.cluster;
      close(block.mainEffectInModel.chi2, mainBlock.chi2, "config block chi2 in the interaction model");
      close(block.mainEffectInModel.p, mainBlock.p, "config block p in the interaction model");
      const terms = interaction.tests.config_x_model_all_zero.terms;
      assert.ok(terms.length > 0, "expected terms.length > 0");
      assert.equal(block.coefficients.length, terms.length);
      assert.deepEqual(block.coefficients.map((c) => c.name).sort(), [...terms].sort());
      for (const c of block.coefficients) {
        const g = interaction.coefficients.find((x) => x.name === c.name);
        assert.ok(g, `fixture 04 has ${c.name}`);
        close(c.oddsRatio, g.odds_ratio, `OR ${c.name}`);
        close(c.ci95[0], g.or_ci95_cluster[0], `OR lower ${c.name}`);
        close(c.ci95[1], g.or_ci95_cluster[1], `OR upper ${c.name}`);
        close(c.p, g.p_cluster, `p ${c.name}`);
      }
    });

    it("reproduces fixture 02's case counted from the CSV: the App. P independence Wald RD interval", () => {
      const two = JSON.parse(readFileSync(join(goldenDir, "02_two_proportions.json"), "utf8"));
      const fromData = two.input.from_data as {
        group_1_filter: { benchmark: string; config: string };
        group_2_filter: { benchmark: string; config: string };
      };
      assert.equal(fromData.group_2_filter.config, analysis.meta.reference, "group 2 is the reference");
      // The fixture's last case is the one counted from obs_main.csv (its README).
      const results = two.expected.results as {
        x1: number;
        n1: number;
        x2: number;
        n2: number;
        risk_difference: number;
        rd_ci_wald: [number, number];
      }[];
      assert.equal(results.length, two.input.cases.length);
      const golden = results[results.length - 1];
      const row = analysis.independenceCi.rows.find(
        (r) => r.scope === fromData.group_1_filter.benchmark && r.condition === fromData.group_1_filter.config,
      );
      assert.ok(row, `an App. P row for ${JSON.stringify(fromData.group_1_filter)}`);
      assert.deepEqual([row.x1, row.n1, row.x2, row.n2], [golden.x1, golden.n1, golden.x2, golden.n2]);
      close(row.riskDifference, golden.risk_difference, "RD", 1e-9, 1e-12);
      close(row.wald95[0], golden.rd_ci_wald[0], "Wald lower", 1e-9, 1e-12);
      close(row.wald95[1], golden.rd_ci_wald[1], "Wald upper", 1e-9, 1e-12);
    });

    it("the CLI prints the same odds ratios and writes the JSON result", () => {
      const out = join(mkdtempSync(join(tmpdir(), "parallax-golden-")), "analysis.json");
      const plan = join(repoRoot, "tests", "fixtures", "analysis", "fast-plan.yaml");
      const result = runCli(["analyze", csv, "--json", "--out", out, "--plan", plan]);
      assert.equal(result.status, 0, result.stderr);
      const json = JSON.parse(result.stdout);
      const printed: { condition: string; oddsRatio: { estimate: number } }[] =
        json.analysis.contrasts.itt.pooled.contrasts;
      assert.equal(printed.length, configs.length - 1);
      for (const contrast of printed) {
        const golden = main.coefficients.find((c) => c.name === `config[T.${contrast.condition}]`);
        assert.ok(golden, `fixture 03 has config[T.${contrast.condition}]`);
        close(contrast.oddsRatio.estimate, golden.odds_ratio, `CLI OR ${contrast.condition}`);
      }
      assert.deepEqual(JSON.parse(readFileSync(out, "utf8")).scorecard.title, "Scaffold Safety Scorecard");
    });
  });
}
