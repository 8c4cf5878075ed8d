import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { parse } from "yaml";
import { closedFormClusteredPower } from "../../src/stats/clustered-power.js";
import { runCli } from "../helpers/cli.js";
import { demoSpecYaml, writeDemoSpec } from "../helpers/study.js";
import { needsSpecData } from "../helpers/prerequisites.js";

const EXAMPLES = join(import.meta.dirname, "..", "..", "examples");

function widest(text: string): number {
  return Math.max(...text.split("\n").map((line) => line.length));
}

test("plan --power on the quickstart prints power, MDE and the items needed per contrast, within 120 columns", () => {
  const result = runCli(["plan", join(EXAMPLES, "quickstart.yaml"), "--power"]);
  assert.equal(result.status, 0, result.stderr);
  const section = result.stdout.slice(result.stdout.indexOf("power: minimum effect"));
  assert.ok(section.length > 0, `no power section in:\n${result.stdout}`);
  const spec = parse(readFileSync(join(EXAMPLES, "quickstart.yaml"), "utf8"));
  const items = spec.benchmarks[0].items.length;
  const { scaffold, format } = spec.conditions.facets as { scaffold: string[]; format: string[] };
  // Scaffold is crossed with format on the same items: analyze tests each contrast within each
  // format, so a row per format, its pairs per item the models' (not both formats' pairs).
  const pairs = spec.models.length * (spec.attempts ?? 1);
  const compared = scaffold.filter((s) => s !== "direct");
  for (const level of compared) {
    for (const f of format) {
      assert.match(
        section,
        new RegExp(`\\n  ${level} · ${f} +\\S+ +${items} +${pairs} +[\\d.]+% \\([\\d.]+%\\) .* pp\\n`),
        `row of ${level} at ${f}`,
      );
    }
  }
  const rows = compared.length * format.length;
  assert.equal((section.match(/items per benchmark for 80.0%: power \d+/g) ?? []).length, rows, section);
  assert.ok(widest(result.stdout) <= 120, `a line is ${widest(result.stdout)} columns wide`);
});

test("plan --power on the quickstart: its planted headline (map_reduce's MC loss) has at least 80% power", () => {
  const result = runCli(["plan", join(EXAMPLES, "quickstart.yaml"), "--power", "--json"]);
  assert.equal(result.status, 0, result.stderr);
  const { power } = JSON.parse(result.stdout);
  // The minimum effect is the declared one, at most the planted loss (about 12 pp; docs/SIMULATION.md).
  assert.equal(power.plan.direction, "decrease");
  assert.ok(power.plan.minimum_effect <= 0.12, `minimum effect ${power.plan.minimum_effect}`);
  const headline = power.contrasts.find(
    (c: { level: string; format?: string }) => c.level === "map_reduce" && c.format === "mc",
  );
  assert.ok(headline, "a row for map_reduce at format mc");
  assert.ok(headline.power.rate >= 0.8, `power ${headline.power.rate}`);
});

test("plan --power --json on scaffold-safety-sim: every contrast's simulated power is its closed form within Monte Carlo error", {
  skip: needsSpecData(join(EXAMPLES, "scaffold-safety-sim.yaml")),
}, () => {
  const result = runCli(["plan", join(EXAMPLES, "scaffold-safety-sim.yaml"), "--power", "--json"]);
  assert.equal(result.status, 0, result.stderr);
  const { power } = JSON.parse(result.stdout);
  assert.ok(power.contrasts.length >= 5, `contrasts: ${power.contrasts.length}`);
  for (const c of power.contrasts) {
    const effect = power.plan.direction === "decrease" ? -power.plan.minimum_effect : power.plan.minimum_effect;
    // The closed form recomputed from the reported design, not read back from the output.
    const closed = closedFormClusteredPower(c.design, effect, power.alpha);
    assert.ok(Math.abs(c.power.closedForm - closed) < 1e-12, `${c.contrast}: closed form`);
    assert.ok(
      Math.abs(c.power.rate - closed) < 4 * c.power.monteCarloSe + 0.01,
      `${c.contrast}: simulated ${c.power.rate} vs closed form ${closed}`,
    );
    assert.ok(typeof c.mde === "number" && c.mde > 0, `${c.contrast}: MDE ${c.mde}`);
    assert.ok(c.neededPerBenchmark > 0, `${c.contrast}: items needed ${c.neededPerBenchmark}`);
    const needed = closedFormClusteredPower(
      { ...c.design, clusters: c.clustersForPower.clusters },
      effect,
      power.alpha,
    );
    assert.ok(needed >= power.plan.target, `${c.contrast}: power at the needed n ${needed}`);
  }
});

test("plan --power on a spec with study families sizes each family's contrasts on its own items, the primary first", {
  skip: needsSpecData(join(EXAMPLES, "scaffold-safety-sim.yaml")),
}, () => {
  const result = runCli(["plan", join(EXAMPLES, "scaffold-safety-sim.yaml"), "--power", "--json"]);
  assert.equal(result.status, 0, result.stderr);
  interface PlannedFamily {
    name: string;
    role: string;
    models: string[];
    benchmarks: { items: number }[];
  }
  const { power, families } = JSON.parse(result.stdout) as {
    power: {
      contrasts: {
        contrast: string;
        family: string;
        role?: string;
        design: { clusters: number; pairsPerCluster: number };
      }[];
    };
    families: PlannedFamily[];
  };
  assert.ok(Array.isArray(families) && families.length > 1, "the example declares families");
  assert.equal(power.contrasts[0].role, "primary", "the primary family's contrasts come first");
  for (const c of power.contrasts) {
    const family = families.find((f) => f.name === c.family);
    if (!family) assert.fail(`${c.contrast}: family ${c.family} is not one the plan lists`);
    const items = family.benchmarks.reduce((sum, b) => sum + b.items, 0);
    // A family's contrast runs on at most its own items (fewer when a benchmark lacks the pair).
    assert.ok(
      c.design.clusters <= items && c.design.clusters > 0,
      `${c.contrast} in ${c.family}: ${c.design.clusters} of ${items}`,
    );
    assert.equal(c.design.pairsPerCluster % family.models.length, 0, `${c.contrast}: pairs per item per model`);
  }
  const primary = families.find((f) => f.role === "primary");
  if (!primary) assert.fail("the example declares a primary family");
  const primaryItems = primary.benchmarks.reduce((sum, b) => sum + b.items, 0);
  for (const c of power.contrasts.filter((x) => x.role === "primary"))
    assert.equal(c.design.clusters, primaryItems, `${c.contrast}: every primary item is a cluster`);
  const text = runCli(["plan", join(EXAMPLES, "scaffold-safety-sim.yaml"), "--power"]);
  assert.match(text.stdout, /study family primary \(primary; TOST margin [\d.]+ pp\):/);
  for (const line of text.stdout.split("\n")) assert.ok(line.length <= 120, `over 120 columns: ${line}`);
});

test("plan --power --pilot estimates the assumptions from a pilot run, and refuses a pilot of another spec", () => {
  const facets = "    scaffold: [direct, cot]\n    format: [mc]";
  const study = writeDemoSpec({ items: 8, facets, attempts: 2 });
  assert.equal(runCli(["run", study.specPath, "--out", study.outDir]).status, 0, "pilot run");
  const planned = runCli(["plan", study.specPath, "--power", "--pilot", study.outDir]);
  assert.equal(planned.status, 0, planned.stderr);
  assert.match(planned.stdout, /assumed \(pilot\): baseline 0\.\d{3}, icc 0\.\d{3}, discordance 0\.\d{3}/);
  assert.match(planned.stdout, /note: pilot .*: 32 scored trials, 8 items/);

  const other = writeDemoSpec({ items: 8, facets });
  writeFileSync(
    other.specPath,
    demoSpecYaml({ items: 8, facets }).replace("study: demo-study", "study: another-study"),
  );
  const refused = runCli(["plan", other.specPath, "--power", "--pilot", study.outDir]);
  assert.equal(refused.status, 2, refused.stdout);
  assert.match(
    refused.stderr,
    /pilot .*: its run is study 'demo-study'.* the spec is study 'another-study'.*same spec/,
  );
  const noPower = runCli(["plan", study.specPath, "--pilot", study.outDir]);
  assert.equal(noPower.status, 2);
  assert.match(noPower.stderr, /--pilot needs --power/);
});

test("plan --power on a sequential spec adds the sequential design's power and expected items and cost", {
  skip: needsSpecData(join(EXAMPLES, "sequential-sim.yaml")),
}, () => {
  const result = runCli(["plan", join(EXAMPLES, "sequential-sim.yaml"), "--power", "--json"]);
  assert.equal(result.status, 0, result.stderr);
  const [cot] = JSON.parse(result.stdout).power.contrasts;
  const s = cot.sequential;
  assert.ok(Math.abs(s.typeIError - 0.05) < 1e-6, `type I error ${s.typeIError}`);
  assert.ok(
    s.power > 0 && s.power < cot.power.closedForm,
    `sequential power ${s.power} below the fixed ${cot.power.closedForm}`,
  );
  assert.ok(
    s.expectedFractionAlternative < s.expectedFractionNull && s.expectedFractionNull <= 1,
    `expected items: ${s.expectedFractionAlternative} under the effect, ${s.expectedFractionNull} under none`,
  );
  const text = runCli(["plan", join(EXAMPLES, "sequential-sim.yaml"), "--power"]).stdout;
  assert.match(text, /sequential design \(execution\.sequential\)/);
  assert.match(text, /cot +power [\d.]+%; no effect: [\d.]+% \(\$[\d.]+\), minimum effect: [\d.]+% \(\$[\d.]+\)/);
});
