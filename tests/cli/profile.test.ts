/**
 * `parallax profile` through the real command, on two simulated studies written as tidy tables:
 * S1 a scaffold comparison (three scaffolds, one format), S2 a template grid (three templates), on
 * 100 shared items (S2 runs 10 more) with item difficulties drawn once. The planted sensitivities:
 * m1 moves with scaffolds and hardly with templates, m2 the reverse, m3 and m4 are one model run
 * twice under two names (equal), m5 is clearly stronger; m6 ran S1 only. Profile must recover the
 * planted axis of each model (its largest share, the planted share inside the interval), put m3 and
 * m4 in one tie group and m5 in another, count its scores, differences and order from the trials,
 * and refuse studies without a shared item (exit 2, one line, nothing written).
 */
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { type ModelProfile, profileHeadline } from "../../src/analysis/index.js";
import { RandomStream } from "../../src/stats/index.js";
import { runCli } from "../helpers/cli.js";
import { demoSpecYaml, writeDemoSpec } from "../helpers/study.js";
import { exactMcNemar, holm } from "../helpers/paired-reference.js";

const SHARED_ITEMS = 100;
const EXTRA_ITEMS = 10;
const SCAFFOLDS = ["direct", "react", "critic"];
const TEMPLATES = ["t1", "t2", "t3"];

interface Planted {
  base: number;
  /** Logit effects per level, in SCAFFOLDS / TEMPLATES order (each sums to zero). */
  scaffold: number[];
  template: number[];
}

const PLANTED: Record<string, Planted> = {
  m1: { base: -0.5, scaffold: [-1, 0, 1], template: [-0.1, 0, 0.1] },
  m2: { base: -0.5, scaffold: [-0.1, 0, 0.1], template: [-1, 0, 1] },
  m3: { base: 0.5, scaffold: [-0.8, 0, 0.8], template: [-0.15, 0, 0.15] },
  m4: { base: 0.5, scaffold: [-0.8, 0, 0.8], template: [-0.15, 0, 0.15] },
  m5: { base: 2.5, scaffold: [-0.2, 0, 0.2], template: [-0.8, 0, 0.8] },
};
const SHARED_MODELS = Object.keys(PLANTED);

/** The planted share of an axis: the mean square of its level effects over the sum of both axes'. */
function plantedShare(model: string, axis: "scaffold" | "template"): number {
  const meanSquare = (effects: number[]) => effects.reduce((t, v) => t + v * v, 0) / effects.length;
  const p = PLANTED[model];
  return meanSquare(p[axis]) / (meanSquare(p.scaffold) + meanSquare(p.template));
}

interface Trial {
  study: "S1" | "S2";
  model: string;
  level: string;
  item: string;
  outcome: number;
}

function itemId(i: number): string {
  return `q${String(i).padStart(3, "0")}`;
}

/** Both studies' trials, one attempt per model, condition and item. */
function simulate(seed: number): Trial[] {
  const random = RandomStream.fromSeed(seed);
  const difficulty = Array.from({ length: SHARED_ITEMS + EXTRA_ITEMS }, () => random.normal());
  const draw = (logit: number) => (random.uniform() < 1 / (1 + Math.exp(-logit)) ? 1 : 0);
  const trials: Trial[] = [];
  const models = { S1: [...SHARED_MODELS, "m6"], S2: SHARED_MODELS };
  for (const study of ["S1", "S2"] as const) {
    const levels = study === "S1" ? SCAFFOLDS : TEMPLATES;
    const items = study === "S1" ? SHARED_ITEMS : SHARED_ITEMS + EXTRA_ITEMS;
    for (const model of models[study]) {
      const planted = PLANTED[model] ?? PLANTED.m3;
      // m4 replays m3's draws: the two are one model under two names.
      const source = model === "m4" ? "m3" : model;
      levels.forEach((level, l) => {
        for (let i = 0; i < items; i++) {
          const effect = study === "S1" ? planted.scaffold[l] : planted.template[l];
          const outcome = source === model ? draw(planted.base + effect + difficulty[i]) : -1;
          trials.push({ study, model, level, item: itemId(i + 1), outcome });
        }
      });
    }
  }
  const m3 = new Map(trials.filter((t) => t.model === "m3").map((t) => [`${t.study}|${t.level}|${t.item}`, t.outcome]));
  for (const t of trials) if (t.model === "m4") t.outcome = m3.get(`${t.study}|${t.level}|${t.item}`)!;
  return trials;
}

function csv(trials: readonly Trial[], study: "S1" | "S2"): string {
  const rows = trials.filter((t) => t.study === study);
  if (study === "S1") {
    const lines = rows.map((t) => [
      t.model,
      t.level,
      "mc",
      "bench",
      t.item,
      t.outcome,
      `a-${t.model}-${t.level}-${t.item}`,
      1,
    ]);
    return `model,scaffold,format,benchmark,item_id,outcome,trial_id,attempt\n${lines.map((l) => l.join(",")).join("\n")}\n`;
  }
  const lines = rows.map((t) => [t.model, t.level, "bench", t.item, t.outcome, `b-${t.model}-${t.level}-${t.item}`, 1]);
  return `model,template,benchmark,item_id,outcome,trial_id,attempt\n${lines.map((l) => l.join(",")).join("\n")}\n`;
}

interface JsonShare {
  axis: string;
  share: number;
  ci: [number, number];
}

interface JsonProfile {
  headline: string;
  models: string[];
  items: number;
  axes: { name: string; levels: string[] }[];
  notes: string[];
  profiles: {
    model: string;
    range: {
      score: number;
      conditions: { condition: string; rate: number }[];
      lowest: { condition: string; rate: number };
      highest: { condition: string; rate: number };
      spread: number;
    };
    axes: { shares: JsonShare[]; draws: number; converged: boolean };
  }[];
  ranking: {
    models: { model: string; group: number }[];
    groups: string[][];
    pairs: {
      higher: string;
      lower: string;
      difference: number;
      itemsHigher: number;
      itemsLower: number;
      p: number;
      pAdjusted: number;
      distinguishable: boolean;
      conditions: number;
      orderHolds: number;
      orderReversed: number;
    }[];
  };
}

const close = (a: number, b: number) => Math.abs(a - b) < 1e-12;

describe("parallax profile", () => {
  const dir = mkdtempSync(join(tmpdir(), "parallax-profile-"));
  const trials = simulate(11);
  const shared = trials.filter((t) => Number(t.item.slice(1)) <= SHARED_ITEMS && t.model !== "m6");
  const pathA = join(dir, "scaffolds.csv");
  const pathB = join(dir, "templates.csv");
  writeFileSync(pathA, csv(trials, "S1"));
  writeFileSync(pathB, csv(trials, "S2"));
  const result = runCli(["profile", pathA, pathB, "--json"]);
  const profile = JSON.parse(result.stdout || "null") as JsonProfile;
  const byModel = (model: string) => profile.profiles.find((p) => p.model === model)!;
  const share = (model: string, axis: string) => byModel(model).axes.shares.find((s) => s.axis === axis)!;

  it("pools the shared models and items, and names what it leaves out", () => {
    assert.equal(result.status, 0, result.stderr);
    assert.deepEqual(profile.models, SHARED_MODELS);
    assert.equal(profile.items, SHARED_ITEMS);
    assert.deepEqual(
      profile.axes.map((a) => [a.name, a.levels.length]),
      [
        ["scaffold", 3],
        ["template", 3],
      ],
    );
    assert.ok(
      profile.notes.some((n) => /axis format has one level \(mc\), left out/.test(n)),
      `the one-level format axis is named: ${profile.notes}`,
    );
    assert.ok(
      profile.notes.some((n) => /models not in every study, left out: m6/.test(n)),
      `m6 is named: ${profile.notes}`,
    );
  });

  it("recovers each model's planted axis: its largest share, the planted share inside the interval", () => {
    for (const [model, axis] of [
      ["m1", "scaffold"],
      ["m2", "template"],
      ["m3", "scaffold"],
      ["m4", "scaffold"],
    ] as const) {
      const other = axis === "scaffold" ? "template" : "scaffold";
      assert.ok(
        share(model, axis).share > share(model, other).share,
        `${model}: ${axis} ${share(model, axis).share} above ${other} ${share(model, other).share}`,
      );
      for (const a of ["scaffold", "template"] as const) {
        const s = share(model, a);
        const planted = plantedShare(model, a);
        assert.ok(s.ci[0] <= planted && planted <= s.ci[1], `${model} ${a}: planted ${planted} outside ${s.ci}`);
      }
    }
    // The sensitive and the robust axis of m1 and m2 are told apart by their intervals, not only by the estimate.
    assert.ok(
      share("m1", "scaffold").ci[0] > share("m1", "template").ci[1],
      "m1: scaffold's interval above template's",
    );
    assert.ok(
      share("m2", "template").ci[0] > share("m2", "scaffold").ci[1],
      "m2: template's interval above scaffold's",
    );
    for (const p of profile.profiles) {
      assert.ok(p.axes.converged, `${p.model}: the GLMM converged`);
      assert.equal(p.axes.draws, 200, `${p.model}: 200 simulated draws behind the intervals`);
    }
  });

  it("puts the two equal models in one tie group and the stronger one in another", () => {
    const groupOf = (model: string) => profile.ranking.models.find((m) => m.model === model)!.group;
    assert.equal(groupOf("m3"), groupOf("m4"), JSON.stringify(profile.ranking.groups));
    assert.notEqual(groupOf("m5"), groupOf("m3"), JSON.stringify(profile.ranking.groups));
    assert.equal(profile.ranking.models[0].model, "m5");
    const pair = (a: string, b: string) =>
      profile.ranking.pairs.find((p) => (p.higher === a && p.lower === b) || (p.higher === b && p.lower === a))!;
    assert.equal(pair("m3", "m4").difference, 0, "m3 and m4 are one model under two names");
    assert.equal(pair("m3", "m4").distinguishable, false);
    assert.ok(
      pair("m5", "m3").distinguishable && pair("m5", "m4").distinguishable,
      "m5 is distinguishable from m3, m4",
    );
    assert.match(profile.headline, /\{m3, m4\}|\{m4, m3\}/);
    assert.match(profile.headline, /^\d distinguishable tie groups: m5 > /);
    assert.match(profile.headline, /scaffold for .*m1/);
    assert.match(profile.headline, /template for .*m2/);
  });

  it("counts scores, ranges, differences, McNemar and Holm from the trials", () => {
    const rate = (rows: Trial[]) => rows.reduce((t, r) => t + r.outcome, 0) / rows.length;
    for (const model of SHARED_MODELS) {
      const own = shared.filter((t) => t.model === model);
      const p = byModel(model);
      assert.ok(close(p.range.score, rate(own)), `${model}: score is the rate over its shared trials`);
      const byCondition = [...SCAFFOLDS, ...TEMPLATES].map((level) => rate(own.filter((t) => t.level === level)));
      assert.ok(close(p.range.lowest.rate, Math.min(...byCondition)), `${model}: lowest condition`);
      assert.ok(close(p.range.highest.rate, Math.max(...byCondition)), `${model}: highest condition`);
      assert.ok(close(p.range.spread, Math.max(...byCondition) - Math.min(...byCondition)), `${model}: spread`);
    }
    const outcome = new Map(shared.map((t) => [`${t.model}|${t.study}|${t.level}|${t.item}`, t.outcome]));
    const expectedP = profile.ranking.pairs.map((pair) => {
      const rows = shared.filter((t) => t.model === pair.higher);
      const other = (t: Trial) => outcome.get(`${pair.lower}|${t.study}|${t.level}|${t.item}`)!;
      const diff = rows.reduce((total, t) => total + t.outcome - other(t), 0) / rows.length;
      assert.ok(close(pair.difference, diff), `${pair.higher} - ${pair.lower}: the paired difference`);
      const perItem = new Map<string, number>();
      for (const t of rows) perItem.set(t.item, (perItem.get(t.item) ?? 0) + t.outcome - other(t));
      const higher = [...perItem.values()].filter((d) => d > 0).length;
      const lower = [...perItem.values()].filter((d) => d < 0).length;
      assert.deepEqual([pair.itemsHigher, pair.itemsLower], [higher, lower], `${pair.higher} - ${pair.lower} items`);
      const conditions = [...SCAFFOLDS, ...TEMPLATES].map((level) =>
        rows.filter((t) => t.level === level).reduce((total, t) => total + t.outcome - other(t), 0),
      );
      assert.equal(pair.conditions, 6);
      assert.equal(pair.orderHolds, conditions.filter((d) => d > 0).length, `${pair.higher} - ${pair.lower} order`);
      assert.equal(pair.orderReversed, conditions.filter((d) => d < 0).length, `${pair.higher} - ${pair.lower} flips`);
      return exactMcNemar(higher, lower);
    });
    const adjusted = holm(expectedP);
    profile.ranking.pairs.forEach((pair, i) => {
      assert.ok(close(pair.p, expectedP[i]), `${pair.higher} - ${pair.lower}: exact McNemar p`);
      assert.ok(close(pair.pAdjusted, adjusted[i]), `${pair.higher} - ${pair.lower}: Holm`);
    });
  });

  it("leads the overview with the headline within 120 columns, and writes the card only to --out", () => {
    const cwd = mkdtempSync(join(tmpdir(), "parallax-profile-cwd-"));
    const plain = runCli(["profile", pathA, pathB, "--resamples", "50"], { cwd });
    assert.equal(plain.status, 0, plain.stderr);
    const lines = plain.stdout.split("\n");
    assert.ok(lines[0].startsWith(profile.headline.slice(0, 40)), `first line is the headline: ${lines[0]}`);
    for (const line of lines) assert.ok(line.length <= 120 && !line.endsWith("…"), `too wide, or cut: ${line}`);
    assert.deepEqual(readdirSync(cwd), [], "nothing written without --out");
    const card = join(cwd, "card.md");
    const withOut = runCli(["profile", pathA, pathB, "--resamples", "50", "--out", card], { cwd });
    assert.equal(withOut.status, 0, withOut.stderr);
    const text = readFileSync(card, "utf8");
    assert.match(text, /^# Evaluation Conditions card\n\n\*\*.+\*\*\n/);
    assert.match(text, /\| m1 \| scaffold \| 9\d\.\d% /);
    assert.ok(!readdirSync(dir).some((name) => name.endsWith(".md")), "nothing written beside the studies");
  });

  it("refuses studies that share no item, or no model, with exit 2 and one line", () => {
    const disjoint = join(dir, "disjoint.csv");
    writeFileSync(disjoint, csv(trials, "S2").replace(/,q(\d+),/g, ",x$1,"));
    const out = join(dir, "never.md");
    const noItems = runCli(["profile", pathA, disjoint, "--out", out]);
    assert.equal(noItems.status, 2);
    assert.match(
      noItems.stderr,
      /^parallax: not comparable: no shared items \(S1 .*: 100; S2 .*: 110 items, none in every study\)\n$/,
    );
    assert.equal(existsSync(out), false, "nothing written");
    const renamed = join(dir, "renamed.csv");
    writeFileSync(renamed, csv(trials, "S2").replace(/^m(\d),/gm, "other-m$1,"));
    const noModels = runCli(["profile", pathA, renamed]);
    assert.equal(noModels.status, 2);
    assert.match(
      noModels.stderr,
      /^parallax: not comparable: no shared models \(S1 .*: m1, m2, m3, \.\.\.; S2 .*other-m1.*\)\n$/,
    );
  });
});

describe("parallax profile on one study", () => {
  /** One grid crossing scaffolds and templates: m1 planted on scaffolds, m2 on templates, additively. */
  function grid(seed: number): string {
    const random = RandomStream.fromSeed(seed);
    const difficulty = Array.from({ length: 60 }, () => random.normal());
    const lines: string[] = [];
    for (const model of ["m1", "m2"]) {
      const planted = PLANTED[model];
      SCAFFOLDS.forEach((scaffold, s) => {
        TEMPLATES.forEach((template, t) => {
          difficulty.forEach((d, i) => {
            const logit = planted.base + planted.scaffold[s] + planted.template[t] + d;
            const outcome = random.uniform() < 1 / (1 + Math.exp(-logit)) ? 1 : 0;
            lines.push([model, scaffold, template, "bench", itemId(i + 1), outcome, 1].join(","));
          });
        });
      });
    }
    return `model,scaffold,template,benchmark,item_id,outcome,attempt\n${lines.join("\n")}\n`;
  }

  it("profiles the axes of a single grid, and refuses a study without an axis of two levels", () => {
    const dir = mkdtempSync(join(tmpdir(), "parallax-profile-one-"));
    const path = join(dir, "grid.csv");
    writeFileSync(path, grid(5));
    const result = runCli(["profile", path, "--json", "--resamples", "50"]);
    assert.equal(result.status, 0, result.stderr);
    const profile = JSON.parse(result.stdout) as JsonProfile;
    assert.equal(profile.ranking.groups.length, 1, "m1 and m2 are planted with one base");
    for (const [model, axis, other] of [
      ["m1", "scaffold", "template"],
      ["m2", "template", "scaffold"],
    ]) {
      const shares = profile.profiles.find((p) => p.model === model)!.axes.shares;
      assert.deepEqual(
        shares.map((s) => s.axis),
        ["scaffold", "template"],
        "no between-studies component with one study",
      );
      const of = (a: string) => shares.find((s) => s.axis === a)!;
      assert.ok(of(axis).ci[0] > of(other).ci[1], `${model}: ${axis}'s interval above ${other}'s`);
    }
    const single = join(dir, "single.csv");
    writeFileSync(single, "model,scaffold,benchmark,item_id,outcome\nm1,direct,bench,q1,1\nm2,direct,bench,q1,0\n");
    const refused = runCli(["profile", single]);
    assert.equal(refused.status, 2);
    assert.match(refused.stderr, /^parallax: nothing to profile: no condition axis has two levels .*scaffold.*\n$/);
  });
});

describe("parallax profile on study directories", () => {
  /** A simulated study of a strong and a weak model under the given formats, run into a fresh directory. */
  function study(formats: string): string {
    const { specPath, outDir } = writeDemoSpec();
    const models = ["strong", "weak"]
      .map(
        (ability) => `  - id: sim-${ability}\n    provider: sim\n    model: ${ability}\n    params: { temperature: 0 }`,
      )
      .join("\n");
    writeFileSync(specPath, demoSpecYaml({ items: 30, facets: `    format: [${formats}]`, models }));
    const run = runCli(["run", specPath, "--out", outDir]);
    assert.equal(run.status, 0, run.stderr);
    return outDir;
  }

  it("pools two runs and ranks the stronger model first", () => {
    const [both, mcOnly] = [study("mc, oe"), study("mc")];
    const result = runCli(["profile", both, mcOnly, "--json", "--resamples", "20"]);
    assert.equal(result.status, 0, result.stderr);
    const profile = JSON.parse(result.stdout) as JsonProfile;
    assert.deepEqual(profile.models, ["sim-strong", "sim-weak"]);
    assert.equal(profile.items, 30);
    assert.deepEqual(
      profile.axes.map((a) => a.name),
      ["format"],
    );
    assert.equal(profile.ranking.models[0].model, "sim-strong", JSON.stringify(profile.ranking));
    for (const dir of [both, mcOnly]) {
      assert.deepEqual(readdirSync(dir).sort(), ["manifest.json", "parallax.db", "spec.json"], "nothing written");
    }
  });
});

describe("the profile headline", () => {
  const ranking = (groups: string[][]) => ({
    models: groups.flat().map((model, i) => ({ model, score: 1 - i / 10, group: 1 })),
    groups,
    pairs: [],
  });
  const moved = (model: string, shares: Record<string, number>): ModelProfile =>
    ({
      model,
      axes: { shares: Object.entries(shares).map(([axis, share]) => ({ axis, share })) },
    }) as unknown as ModelProfile;

  it("claims one axis for every model only when it tops every model's shares", () => {
    const profiles = [moved("a", { scaffold: 0.9, template: 0.1 }), moved("b", { scaffold: Number.NaN })];
    assert.equal(
      profileHeadline(ranking([["a", "b"]]), profiles),
      "No model is distinguishable from another (2 models, one tie group); the axis moving scores most is scaffold for a and none measurably for b.",
    );
    assert.equal(
      profileHeadline(ranking([["a"], ["b"]]), [moved("a", { scaffold: 0.9 }), moved("b", { scaffold: 0.6 })]),
      "Every model is distinguishable: a > b; scaffold moves scores most for every model.",
    );
  });
});
