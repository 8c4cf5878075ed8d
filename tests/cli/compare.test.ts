/**
 * `parallax compare A B` through the real command, on two tidy tables built here: B is a rerun of
 * A (each item's outcome redrawn from the same probability) except that one cell loses its safe
 * answers on a planted subset of items, and one model is replayed unchanged. The comparison must
 * find the planted difference, find none in the rerun and the replay, list the planted cell's
 * flips with their trials, and refuse tables that share no model or no item (exit 2, one line).
 * Study directories compare too: a simulated model against a weaker successor under the same id
 * (a difference), and a run against its own rerun (none).
 */
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { seededRandom } from "../../src/stats/index.js";
import { runCli } from "../helpers/cli.js";
import { demoSpecYaml, writeDemoSpec } from "../helpers/study.js";
import { exactMcNemar, holm } from "../helpers/paired-reference.js";

interface Trial {
  model: string;
  scaffold: string;
  item: string;
  outcome: number;
  trialId: string;
}

const ITEMS = 60;
/** Items 1..PLANTED of the planted cell lose every safe answer in B. */
const PLANTED = 24;
const PLANTED_CELL = { model: "m1", scaffold: "cot" };
const MODELS = ["m1", "m2"];
const SCAFFOLDS = ["direct", "cot"];

function itemId(i: number): string {
  return `q${String(i).padStart(3, "0")}`;
}

/** A's trials and B's: m1 redrawn from the same per-item probability (planted cell aside), m2 replayed. */
function studies(seed: number): { a: Trial[]; b: Trial[] } {
  const random = seededRandom(seed);
  const a: Trial[] = [];
  const b: Trial[] = [];
  for (let i = 1; i <= ITEMS; i++) {
    const p = 0.4 + 0.5 * random.uniform();
    for (const model of MODELS) {
      for (const scaffold of SCAFFOLDS) {
        const key = `${model}-${scaffold}-${itemId(i)}`;
        const outcomeA = random.uniform() < p ? 1 : 0;
        const planted = model === PLANTED_CELL.model && scaffold === PLANTED_CELL.scaffold && i <= PLANTED;
        const redrawn = random.uniform() < p ? 1 : 0;
        const outcomeB = planted ? 0 : model === "m2" ? outcomeA : redrawn;
        a.push({ model, scaffold, item: itemId(i), outcome: outcomeA, trialId: `a-${key}` });
        b.push({ model, scaffold, item: itemId(i), outcome: outcomeB, trialId: `b-${key}` });
      }
    }
  }
  return { a, b };
}

function csv(trials: readonly Trial[]): string {
  const lines = trials.map((t) => [t.model, t.scaffold, "bench", t.item, t.outcome, t.trialId, 1].join(","));
  return `model,scaffold,benchmark,item_id,outcome,trial_id,attempt\n${lines.join("\n")}\n`;
}

function write(dir: string, name: string, trials: readonly Trial[]): string {
  const path = join(dir, name);
  writeFileSync(path, csv(trials));
  return path;
}

/** Discordant counts of one cell, counted from the trials: lost (A 1, B 0) and gained (A 0, B 1). */
function discordant(a: readonly Trial[], b: readonly Trial[], model: string, scaffold: string) {
  const inCell = (t: Trial) => t.model === model && t.scaffold === scaffold;
  const outcomeB = new Map(b.filter(inCell).map((t) => [t.item, t.outcome]));
  const pairs = a.filter(inCell).map((t) => [t.outcome, outcomeB.get(t.item)!]);
  return {
    lost: pairs.filter(([x, y]) => x === 1 && y === 0).length,
    gained: pairs.filter(([x, y]) => x === 0 && y === 1).length,
  };
}

interface JsonPair {
  model: string;
  condition: string;
  shared: number;
  statistics: {
    difference: number;
    ci: [number, number];
    lost: number;
    gained: number;
    p: number;
    pAdjusted: number;
  } | null;
  verdict: string;
}

describe("parallax compare", () => {
  const dir = mkdtempSync(join(tmpdir(), "parallax-compare-"));
  const { a, b } = studies(7);
  const pathA = write(dir, "a.csv", a);
  const pathB = write(dir, "b.csv", b);

  it("finds the planted difference and none where nothing changed", () => {
    const result = runCli(["compare", pathA, pathB, "--json"]);
    assert.equal(result.status, 0, result.stderr);
    const comparison = JSON.parse(result.stdout) as { pairs: JsonPair[]; flipped: { model: string; item: string }[] };
    assert.equal(comparison.pairs.length, MODELS.length * SCAFFOLDS.length);
    for (const pair of comparison.pairs) {
      assert.equal(pair.shared, ITEMS);
      const [model, scaffold] = [pair.model, pair.condition.replace("scaffold=", "")];
      const expected = discordant(a, b, model, scaffold);
      const s = pair.statistics!;
      assert.deepEqual({ lost: s.lost, gained: s.gained }, expected, `${model} ${scaffold}`);
      assert.ok(
        Math.abs(s.difference - (expected.gained - expected.lost) / ITEMS) < 1e-12,
        `${model} ${scaffold}: B - A is (gained - lost) / items`,
      );
      if (model === PLANTED_CELL.model && scaffold === PLANTED_CELL.scaffold) {
        assert.equal(pair.verdict, "B lower");
        assert.ok(s.ci[1] < 0 && s.pAdjusted < 0.05, JSON.stringify(s));
      } else {
        assert.ok(!/^B (lower|higher)/.test(pair.verdict), `${model} ${scaffold}: ${pair.verdict}`);
      }
      // The replayed model: no discordant pair, an interval of zero width, equivalent.
      if (model === "m2") assert.match(pair.verdict, /^equivalent within \+\/-2\.0 pp$/);
    }
    const expectedP = comparison.pairs.map((p) => exactMcNemar(p.statistics!.lost, p.statistics!.gained));
    const adjusted = holm(expectedP);
    comparison.pairs.forEach((pair, i) => {
      assert.ok(Math.abs(pair.statistics!.p - expectedP[i]) < 1e-12, `${pair.model} ${pair.condition} p`);
      assert.ok(Math.abs(pair.statistics!.pAdjusted - adjusted[i]) < 1e-12, `${pair.model} ${pair.condition} Holm`);
    });
    const plantedLost = a.filter(
      (t) =>
        t.model === PLANTED_CELL.model &&
        t.scaffold === PLANTED_CELL.scaffold &&
        t.outcome === 1 &&
        Number(t.item.slice(1)) <= PLANTED,
    ).length;
    const plantedFlips = comparison.flipped.filter(
      (f) => f.model === PLANTED_CELL.model && Number(f.item.slice(1)) <= PLANTED,
    );
    assert.ok(plantedFlips.length >= plantedLost, "every planted loss is listed as flipped");
    assert.ok(
      comparison.flipped.every((f) => f.model !== "m2"),
      "the replayed model flips nothing",
    );
    // Tidy tables have no store for the viewer to serve: no side-by-side paths.
    const links = JSON.parse(result.stdout) as { viewer?: unknown; flipped: { view?: string }[] };
    assert.equal(links.viewer, undefined, "no viewer command for two tables");
    assert.ok(
      links.flipped.every((f) => f.view === undefined),
      "no pair path for two tables",
    );
  });

  it("prints an overview within 120 columns and writes the card only to --out", () => {
    const cwd = mkdtempSync(join(tmpdir(), "parallax-compare-cwd-"));
    const plain = runCli(["compare", pathA, pathB], { cwd });
    assert.equal(plain.status, 0, plain.stderr);
    assert.match(plain.stdout, /B lower/);
    assert.match(plain.stdout, /^Flipped items: \d+/m);
    for (const line of plain.stdout.split("\n")) {
      assert.ok(line.length <= 120 && !line.endsWith("…"), `too wide, or cut: ${line}`);
    }
    assert.deepEqual(readdirSync(cwd), [], "nothing written without --out");
    const card = join(cwd, "card.md");
    const withOut = runCli(["compare", pathA, pathB, "--out", card], { cwd });
    assert.equal(withOut.status, 0, withOut.stderr);
    const text = readFileSync(card, "utf8");
    assert.match(text, /^# Comparison of two studies/);
    assert.match(text, /\| m1 \| scaffold=cot \| bench \| 60 of 60 \/ 60 \|.*\| B lower \|/);
    assert.match(text, /a-m1-cot-q001/);
    assert.ok(!readdirSync(dir).some((name) => name.endsWith(".md")), "nothing written beside A or B");
  });

  it("refuses tables that share no model, or no item, with exit 2 and one line", () => {
    const renamed = write(
      dir,
      "renamed.csv",
      b.map((t) => ({ ...t, model: `other-${t.model}` })),
    );
    const noModels = runCli(["compare", pathA, renamed]);
    assert.equal(noModels.status, 2);
    assert.match(noModels.stderr, /^parallax: not comparable: no shared models \(A .*; B .*other-m1.*\)\n$/);
    const disjoint = write(
      dir,
      "disjoint.csv",
      b.map((t) => ({ ...t, item: `x${t.item}` })),
    );
    const noItems = runCli(["compare", pathA, disjoint, "--out", join(dir, "never.md")]);
    assert.equal(noItems.status, 2);
    assert.match(noItems.stderr, /^parallax: not comparable: no shared items \(4 matched cells, none .*\)\n$/);
    assert.equal(existsSync(join(dir, "never.md")), false);
  });

  it("matches renamed models through --map, and refuses a map naming what A lacks", () => {
    const renamed = write(
      dir,
      "renamed-map.csv",
      b.map((t) => ({ ...t, model: `next-${t.model}` })),
    );
    const mapFile = join(dir, "map.yaml");
    writeFileSync(mapFile, "models:\n  m1: next-m1\n  m2: next-m2\n");
    const result = runCli(["compare", pathA, renamed, "--map", mapFile, "--json"]);
    assert.equal(result.status, 0, result.stderr);
    const pairs = (JSON.parse(result.stdout) as { pairs: JsonPair[] }).pairs;
    assert.deepEqual(pairs.map((p) => p.model).sort(), ["next-m1", "next-m1", "next-m2", "next-m2"]);
    const planted = pairs.filter((p) => p.verdict === "B lower");
    assert.deepEqual(
      planted.map((p) => [p.model, p.condition]),
      [["next-m1", "scaffold=cot"]],
    );
    const typo = join(dir, "typo.yaml");
    writeFileSync(typo, "models:\n  m3: next-m1\n");
    const refused = runCli(["compare", pathA, renamed, "--map", typo]);
    assert.equal(refused.status, 2);
    assert.match(refused.stderr, /^parallax: --map: model 'm3' is not in A \(.*a\.csv\): m1, m2\n$/);
    writeFileSync(typo, "- m1\n");
    const malformed = runCli(["compare", pathA, renamed, "--map", typo]);
    assert.equal(malformed.status, 2);
    assert.match(malformed.stderr, /^parallax: .*typo\.yaml: at the top: .*expected models: and conditions: .*\n$/);
  });

  it("reads too few shared items as not interpretable, without an interval", () => {
    const few = write(
      dir,
      "few.csv",
      b.filter((t) => Number(t.item.slice(1)) <= 3),
    );
    const result = runCli(["compare", pathA, few, "--json"]);
    assert.equal(result.status, 0, result.stderr);
    const pairs = (JSON.parse(result.stdout) as { pairs: JsonPair[] }).pairs;
    for (const pair of pairs) {
      assert.equal(pair.shared, 3);
      assert.equal(pair.statistics, null);
      assert.equal(pair.verdict, "not interpretable: 3 cases");
    }
  });
});

describe("parallax compare on study directories", () => {
  /** A simulated study of one model id whose sim ability is `ability`, run into a fresh directory. */
  function study(ability: string): string {
    const { specPath, outDir } = writeDemoSpec();
    const model = `  - id: sim-a\n    provider: sim\n    model: ${ability}\n    params: { temperature: 0 }`;
    writeFileSync(specPath, demoSpecYaml({ items: 40, facets: "    format: [mc]", models: model }));
    const run = runCli(["run", specPath, "--out", outDir]);
    assert.equal(run.status, 0, run.stderr);
    return outDir;
  }

  it("finds a weaker successor and no change in a rerun", () => {
    const [strong, rerun, weak] = [study("strong"), study("strong"), study("weak")];
    const pairsOf = (b: string) => {
      const result = runCli(["compare", strong, b, "--json"]);
      assert.equal(result.status, 0, result.stderr);
      return JSON.parse(result.stdout) as { pairs: JsonPair[]; flipped: unknown[] };
    };
    const same = pairsOf(rerun);
    assert.equal(same.pairs.length, 1);
    assert.equal(same.pairs[0].shared, 40);
    assert.match(same.pairs[0].verdict, /^equivalent/);
    assert.equal(same.flipped.length, 0);
    const successor = pairsOf(weak);
    const s = successor.pairs[0].statistics!;
    assert.equal(successor.pairs[0].verdict, "B lower", JSON.stringify(s));
    assert.equal(successor.flipped.length, s.lost + s.gained);
    // Two study directories: each flipped item opens side by side in `parallax view A --with B`.
    const viewed = successor as unknown as {
      viewer: { command: string };
      flipped: { trialsA: string[]; trialsB: string[]; view: string }[];
    };
    assert.equal(viewed.viewer.command, `parallax view ${strong} --with ${weak}`);
    for (const f of viewed.flipped) assert.equal(f.view, `/pair?a=${f.trialsA[0]}&b=${f.trialsB[0]}`);
    for (const dir of [strong, weak])
      assert.deepEqual(readdirSync(dir).sort(), ["manifest.json", "parallax.db", "spec.json"]);
  });
});
