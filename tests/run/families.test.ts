/**
 * Study families in the spec and the plan: each family's models, benchmarks, conditions and
 * sample; trials that families share planned once, with the same ids they have without
 * families; and a clear spec error (file:line, YAML path, what was expected) for each bad family.
 */
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, test } from "node:test";
import { familyDesigns } from "../../src/analysis/core/families.js";
import { checkAgainstStamp, createStamp, normalizePlan } from "../../src/analysis/index.js";
import { familyPlans, planTrials, summarisePlan } from "../../src/run/plan/plan.js";
import { prepareBenchmark } from "../../src/run/prepare/benchmark-preparation.js";
import type { PreparedFamily } from "../../src/run/prepare/families.js";
import { type PreparedStudy, prepareStudy } from "../../src/run/prepare/study.js";
import type { Condition } from "../../src/contracts/condition.js";
import { RandomStream } from "../../src/stats/index.js";
import { runCli } from "../helpers/cli.js";
import { demoItemsYaml } from "../helpers/study.js";

const MODELS = `models:
  - { id: sim-a, provider: sim, model: medium, params: { temperature: 0 } }
  - { id: sim-b, provider: sim, model: strong, params: { temperature: 0 } }
`;

/** Two inline benchmarks (a: 30 items, b: 12) and three scaffolds, with `families` appended. */
function specYaml(families: string): string {
  return `study: family-demo
seed: 1
${MODELS}benchmarks:
  - id: a
    loader: inline
    items:
${demoItemsYaml(30)}
  - id: b
    loader: inline
    items:
${demoItemsYaml(12)}
conditions:
  facets:
    scaffold: [direct, map_reduce, cot]
${families}`;
}

function write(yaml: string): string {
  const dir = mkdtempSync(join(tmpdir(), "parallax-families-"));
  const path = join(dir, "study.yaml");
  writeFileSync(path, yaml);
  return path;
}

const PAPER_LIKE = `families:
  main:
    role: primary
    conditions: { scaffold: [direct, map_reduce] }
    sample: { a: { n: 20, seed: 4 } }
  mechanism:
    role: secondary
    models: [sim-a]
    benchmarks: [a]
    conditions: { scaffold: [direct, cot, map_reduce] }
    sample: { n: 8, seed: 5, within: main }
  fresh:
    role: secondary
    benchmarks: [a]
    conditions: { scaffold: [direct, cot] }
    sample: { n: 10, seed: 6, disjoint_from: [main] }
  check:
    role: control
    benchmarks: [b]
    conditions: { scaffold: [direct, map_reduce] }
`;

describe("families in the plan", () => {
  test("each family's trials, the shared ones counted once, and trial ids that do not depend on the family", async () => {
    const study = await prepareStudy(write(specYaml(PAPER_LIKE)));
    const byName = Object.fromEntries(familyPlans(study).map((f) => [f.name, f]));
    // main: 2 models x 2 conditions x (20 of a + 12 of b).
    assert.equal(byName.main.trials, 2 * 2 * (20 + 12));
    // mechanism: 1 model x 3 conditions x 8 items of main's sample: direct and map_reduce are main's trials.
    assert.equal(byName.mechanism.trials, 1 * 3 * 8);
    assert.equal(byName.mechanism.sharedTrials, 1 * 2 * 8);
    // fresh: 2 models x 2 conditions x 10 items none of which main has.
    assert.equal(byName.fresh.trials, 2 * 2 * 10);
    assert.equal(byName.fresh.sharedTrials, 0);
    // check (control): 2 x 2 x 12 of b, which are main's b trials too.
    assert.equal(byName.check.trials, 2 * 2 * 12);
    assert.equal(byName.check.sharedTrials, 2 * 2 * 12);
    assert.equal(byName.main.sharedTrials, 1 * 2 * 8 + 2 * 2 * 12);

    const summary = summarisePlan(study);
    const distinct = 2 * 2 * (20 + 12) + 1 * 1 * 8 + 2 * 2 * 10;
    assert.equal(summary.trials, distinct, "shared trials counted once");
    const trials = [...planTrials(study, "run")];
    assert.equal(trials.length, distinct);
    assert.equal(new Set(trials.map((t) => t.id)).size, distinct, "no trial planned twice");
    assert.deepEqual(
      summary.perModel.map((m) => m.trials),
      [2 * (20 + 12) + 3 * 8 - 2 * 8 + 2 * 10, 2 * (20 + 12) + 2 * 10],
    );

    // main's sample and fresh's are disjoint; mechanism's is inside main's.
    const main = new Set(study.families![0].items.get("a"));
    const mechanism = study.families![1].items.get("a")!;
    const fresh = study.families![2].items.get("a")!;
    assert.ok(
      mechanism.every((id) => main.has(id)),
      "a sample drawn within main is a subsample of it",
    );
    assert.ok(
      fresh.every((id) => !main.has(id)),
      "a disjoint sample shares no item",
    );

    // The same trials, planned without families, have the same ids (a store is resumable).
    const crossed = await prepareStudy(write(specYaml("")));
    const crossedIds = new Set([...planTrials(crossed, "run")].map((t) => t.id));
    assert.ok(
      trials.every((t) => crossedIds.has(t.id)),
      "every family trial is the crossed design's trial of the same model, condition and item",
    );
  });

  test("the study holds only the items some family draws, prepared on this thread or on a run's worker alike", async () => {
    const path = write(
      specYaml(`families:
  main:
    role: primary
    sample: { a: { n: 10, seed: 4 } }
  narrow:
    role: secondary
    benchmarks: [a]
    sample: { n: 4, seed: 5, within: main }
`),
    );
    const here = await prepareStudy(path);
    // A run prepares its benchmarks on a worker thread, which draws the families' items there.
    const onWorker = await prepareStudy(path, { setPoolsAside: true });
    for (const study of [here, onWorker]) {
      for (const [benchmark, size] of [
        ["a", 10],
        ["b", 12],
      ] as const) {
        const drawn = new Set(study.families!.flatMap((f) => f.items.get(benchmark) ?? []));
        assert.equal(drawn.size, size, `the families draw ${size} items of ${benchmark}`);
        assert.deepEqual(
          [...study.items.get(benchmark)!.keys()].sort(),
          [...drawn].sort(),
          `the study holds exactly the drawn items of ${benchmark}`,
        );
        const entries = study.manifest.benchmarks.find((b) => b.id === benchmark)!.items;
        assert.deepEqual(
          entries.map((e) => e.id),
          [...study.items.get(benchmark)!.keys()],
          `the manifest lists the held items of ${benchmark}, in the benchmark's order`,
        );
      }
    }
    const narrow = new Set(here.families![1].items.get("a"));
    assert.ok(
      [...narrow].every((id) => here.families![0].items.get("a")!.includes(id)),
      "a sample drawn within main is a subsample of it",
    );
    // What a benchmark's preparation hands on is only the drawn items, with each family's list.
    const prepared = await prepareBenchmark({
      spec: here.spec,
      index: 0,
      context: { baseDir: dirname(path), cacheDir: join(dirname(path), ".cache") },
      located: { path, source: here.specSource! },
      plugins: false,
      setAside: false,
    });
    assert.deepEqual(
      prepared.sampled.map((item) => item.id),
      [...here.items.get("a")!.keys()],
      "the preparation hands on the 10 drawn items of a's 30",
    );
    assert.deepEqual([...prepared.families!.keys()], ["main", "narrow"], "each family's items of a, in draw order");
    assert.equal(onWorker.manifestHash, here.manifestHash, "the same manifest from either thread");
    assert.deepEqual(
      onWorker.families!.map((f) => [f.name, [...f.items]]),
      here.families!.map((f) => [f.name, [...f.items]]),
      "the same families' items from either thread",
    );
  });

  test("a cell's items are the union of its families' items; cells of the same families share one set", async () => {
    const study = await prepareStudy(write(specYaml(PAPER_LIKE)));
    const families = study.families!;
    const cells: ReadonlySet<string>[] = [];
    const familyLists = new Set<string>();
    for (const model of study.spec.models)
      for (const condition of study.conditions)
        for (const benchmark of ["a", "b"]) {
          const including = families.filter(
            (f) => f.models.includes(model.id) && f.benchmarkConditions.get(benchmark)?.includes(condition),
          );
          const expected = [...new Set(including.flatMap((f) => f.items.get(benchmark) ?? []))].sort();
          const cell = study.coverage!.get(model.id)?.get(condition)?.get(benchmark);
          assert.deepEqual([...(cell ?? [])].sort(), expected, `${model.id} ${JSON.stringify(condition)} ${benchmark}`);
          if (cell) cells.push(cell);
          if (cell) familyLists.add(`${benchmark}:${including.map((f) => f.name).join(",")}`);
        }
    // One set per benchmark and list of families, however many models and conditions share it.
    const distinct = new Set(cells).size;
    assert.ok(distinct < cells.length, `${distinct} sets for ${cells.length} cells`);
    assert.equal(distinct, familyLists.size, "one set per benchmark and list of families");
  });

  test("plan prints each family's trials and the total with shared trials once", () => {
    const result = runCli(["plan", write(specYaml(PAPER_LIKE))]);
    assert.equal(result.status, 0, result.stderr);
    assert.match(result.stdout, /main \(primary\): 128 trials on 2 model\(s\), items a 20 \+ b 12; 64 of them shared/);
    assert.match(result.stdout, /check \(control\): 48 trials/);
    assert.match(result.stdout, /sum over families 240; shared counted once: 176/);
    const json = JSON.parse(runCli(["plan", write(specYaml(PAPER_LIKE)), "--json"]).stdout);
    assert.equal(json.trials, 176);
    assert.deepEqual(
      json.families.map((f: { name: string; role: string }) => `${f.name}:${f.role}`),
      ["main:primary", "mechanism:secondary", "fresh:secondary", "check:control"],
    );
  });

  test("familyDesigns lists each family's contrasts, correction, margin and trials", async () => {
    const study = await prepareStudy(write(specYaml(PAPER_LIKE)));
    const plan = normalizePlan({ families: { fresh: { multiplicity: "bonferroni", equivalence_margin: 0.05 } } });
    const designs = Object.fromEntries(familyDesigns(study, plan).map((d) => [d.name, d]));
    assert.deepEqual(
      [designs.main.reference, designs.main.contrasts, designs.main.correction, designs.main.trials],
      ["direct", ["map_reduce"], "holm", 128],
    );
    assert.deepEqual(designs.mechanism.contrasts, ["map_reduce", "cot"]);
    assert.deepEqual(
      [designs.fresh.contrasts, designs.fresh.correction, designs.fresh.margin, designs.fresh.trials],
      [["cot"], "bonferroni", 0.05, 40],
    );
    assert.equal(designs.check.role, "control");
  });

  test("a spec without families has no families in its plan", async () => {
    const summary = summarisePlan(await prepareStudy(write(specYaml(""))));
    assert.equal(summary.families, undefined);
    assert.equal(summary.trials, 2 * 3 * 42);
  });
});

describe("bad families: an error at the family's YAML path saying what was expected", () => {
  const cases: [string, string, RegExp][] = [
    [
      "an unknown benchmark",
      "families:\n  x:\n    benchmarks: [a, c]\n",
      /study\.yaml:\d+:\d+: at YAML path families\.x\.benchmarks\[1\]: unknown benchmark id 'c'; expected one of: a, b/,
    ],
    [
      "an unknown model",
      "families:\n  x:\n    models: [sim-z]\n",
      /at YAML path families\.x\.models\[0\]: unknown model id 'sim-z'; expected one of: sim-a, sim-b/,
    ],
    [
      "an unknown facet level",
      "families:\n  x:\n    conditions: { scaffold: [direct, react] }\n",
      /at YAML path families\.x\.conditions\.scaffold\[1\]: unknown level of facet 'scaffold' 'react'; expected one of: direct, map_reduce, cot/,
    ],
    [
      "an unknown facet",
      "families:\n  x:\n    conditions: { format: [mc] }\n",
      /at YAML path families\.x\.conditions\.format: unknown facet 'format'; expected one of: scaffold/,
    ],
    [
      "two primary families",
      "families:\n  x: { role: primary }\n  y: { role: primary }\n",
      /at YAML path families\.y\.role: expected at most one family with role 'primary', found 'x' and 'y'/,
    ],
    [
      "a sample of another family's benchmark",
      "families:\n  x:\n    benchmarks: [a]\n    sample: { b: { n: 3 } }\n",
      /at YAML path families\.x\.sample\.b: expected one of the family's benchmarks \(a\), found 'b'/,
    ],
    [
      "a sample within an unknown family",
      "families:\n  x:\n    sample: { n: 3, within: nope }\n",
      /at YAML path families\.x\.sample\.within: unknown family 'nope'; expected one of: x/,
    ],
    [
      "a disjoint sample larger than what is left",
      "families:\n  x:\n    benchmarks: [a]\n    sample: { n: 25 }\n  y:\n    benchmarks: [a]\n    sample: { n: 10, disjoint_from: [x] }\n",
      /at YAML path families\.y\.sample\.n: expected at most 5 \(the 30 items of benchmark 'a', less the 25 of family 'x'\), found 10; a disjoint sample of 10 is impossible/,
    ],
    [
      "samples that wait on each other",
      "families:\n  x:\n    sample: { n: 3, disjoint_from: [y] }\n  y:\n    sample: { n: 3, disjoint_from: [x] }\n",
      /at YAML path families\.x\.sample: expected samples that can be drawn one after another, found a cycle: x -> y -> x/,
    ],
    [
      "an exclude entry naming an unknown facet",
      "families:\n  x:\n    exclude: [{ format: mc }]\n",
      /at YAML path families\.x\.exclude\[0\]\.format: unknown facet 'format'; expected one of: benchmark, scaffold/,
    ],
    [
      "a benchmark left without any of the family's conditions",
      "families:\n  x:\n    conditions: { scaffold: [cot] }\n    exclude: [{ benchmark: b, scaffold: cot }]\n",
      /at YAML path families\.x\.exclude: expected every benchmark of the family to run one of its conditions, found none on 'b'/,
    ],
    [
      "a benchmark in no family",
      "families:\n  x:\n    benchmarks: [a]\n",
      /at YAML path benchmarks\[1\]\.id: benchmark 'b' is in no family, so it would have no trials/,
    ],
  ];
  for (const [what, families, expected] of cases) {
    test(what, () => {
      const result = runCli(["plan", write(specYaml(families))]);
      assert.equal(result.status, 2, `exit 2 for ${what}: ${result.stderr}`);
      assert.match(result.stderr, expected);
    });
  }
});

describe("pre-registration freezes the families", () => {
  test("a family's sample, conditions or analysis changed after the stamp is a deviation naming the family", async () => {
    const registered = await prepareStudy(write(specYaml(PAPER_LIKE)));
    const stamp = createStamp(registered.spec, registered.manifest, "2026-01-01T00:00:00.000Z");
    const facts = (study: typeof registered) => ({
      spec: study.spec,
      manifest: study.manifest,
      planUsed: normalizePlan(study.spec.analysis),
      planOverride: false,
      runCreatedAt: "2026-01-02T00:00:00.000Z",
      firstFinishedAt: null,
      analyzedAt: "2026-01-03T00:00:00.000Z",
    });
    assert.equal(checkAgainstStamp(stamp, facts(registered)).status, "matches");

    const changed = PAPER_LIKE.replace(
      "sample: { n: 10, seed: 6, disjoint_from: [main] }",
      "sample: { n: 9, seed: 6, disjoint_from: [main] }",
    ).replace("conditions: { scaffold: [direct, cot] }", "conditions: { scaffold: [direct, cot, map_reduce] }");
    const withAnalysis = `${changed}analysis:\n  families:\n    fresh: { multiplicity: bonferroni }\n`;
    const implemented = await prepareStudy(write(specYaml(withAnalysis)));
    const check = checkAgainstStamp(stamp, facts(implemented));
    const elements = check.deviations.map((d) => `${d.kind} ${d.element}`);
    assert.ok(elements.includes("spec families.fresh.sample.n"), `sample change: ${elements.join(" | ")}`);
    assert.ok(
      elements.includes("spec families.fresh.conditions.scaffold"),
      `conditions change: ${elements.join(" | ")}`,
    );
    assert.ok(
      elements.includes("manifest manifest family fresh items of a"),
      `the family's items: ${elements.join(" | ")}`,
    );
    assert.ok(elements.includes("analysis-plan analysis.families"), `the family's analysis: ${elements.join(" | ")}`);
  });
});

describe("families' shared trials, counted per set of families", () => {
  /** Every (model, condition, benchmark, item) a family runs, and how many families run it. */
  function bruteForce(families: PreparedFamily[]): { trials: number; shared: number }[] {
    const owners = new Map<string, number>();
    const trialsOf = (family: PreparedFamily) =>
      family.models.flatMap((model) =>
        [...family.items].flatMap(([benchmark, ids]) =>
          (family.benchmarkConditions.get(benchmark) ?? []).flatMap((condition) =>
            ids.map((id) => JSON.stringify([model, conditionKeys.get(condition), benchmark, id])),
          ),
        ),
      );
    for (const family of families) for (const t of trialsOf(family)) owners.set(t, (owners.get(t) ?? 0) + 1);
    return families.map((family) => {
      const own = trialsOf(family);
      return { trials: own.length, shared: own.filter((t) => owners.get(t)! > 1).length };
    });
  }
  const conditions: Condition[] = ["a", "b", "c", "d"].map((level) => ({ scaffold: level }));
  const conditionKeys = new Map(conditions.map((c, i) => [c, i]));

  test("equal a count of every trial's families, on random overlapping families", () => {
    const random = RandomStream.fromSeed(43);
    const pick = <T>(values: readonly T[]) => values.filter(() => random.uniform() < 0.6);
    for (let round = 0; round < 60; round++) {
      const families: PreparedFamily[] = Array.from({ length: 1 + random.integer(4) }, (_, f) => {
        const benchmarks = pick(["b1", "b2", "b3"]);
        return {
          name: `f${f}`,
          role: f === 0 ? "primary" : "secondary",
          models: pick(["m1", "m2", "m3"]),
          benchmarks,
          conditions,
          benchmarkConditions: new Map(benchmarks.map((b) => [b, pick(conditions)])),
          items: new Map(benchmarks.map((b) => [b, pick(Array.from({ length: 12 }, (_, i) => `${b}-i${i}`))])),
        };
      });
      const study = { families, spec: { attempts: 2 } } as unknown as PreparedStudy;
      const expected = bruteForce(families).map(({ trials, shared }) => [trials * 2, shared * 2]);
      assert.deepEqual(
        familyPlans(study).map((p) => [p.trials, p.sharedTrials]),
        expected,
        `round ${round}: ${families.length} families`,
      );
    }
  });
});
