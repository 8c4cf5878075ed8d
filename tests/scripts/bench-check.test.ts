/**
 * bench:check's reading of the headline figures (bench/headline.json), its comparison with a
 * re-measurement and its side-by-side table; and that docs/PERFORMANCE.md quotes every headline
 * figure as the JSON holds it (one source of truth). No timing here.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, test } from "node:test";
import {
  compare,
  formatComparisons,
  formatValue,
  type HeadlineFigure,
  parseHeadlines,
  readHeadlines,
  unquotedFigures,
} from "../../bench/headline-figures.js";

const REPO = resolve(import.meta.dirname, "../..");

const figure: HeadlineFigure = {
  id: "fixed",
  figure: "fixed cost of a 1-trial run",
  value: 0.25,
  unit: "s",
  better: "lower",
  command: "npm run bench:http",
  anchor: "raw fetch client",
  load: "1.2",
  date: "2026-11-27",
  target: 0.3,
};

describe("headline figures", () => {
  test("a figure file with every field parses; a missing or mistyped field is named with its figure", () => {
    assert.deepEqual(parseHeadlines(JSON.stringify({ figures: [figure] })), [figure]);
    const { unit: _, ...noUnit } = figure;
    assert.throws(
      () => parseHeadlines(JSON.stringify({ figures: [noUnit] }), "h.json"),
      /h\.json: figures\[0\]: field 'unit' must be a string/,
    );
    assert.throws(
      () => parseHeadlines(JSON.stringify({ figures: [{ ...figure, value: "0.25" }] })),
      /figures\[0\]: field 'value' must be a number, found "0.25"/,
    );
    assert.throws(
      () => parseHeadlines(JSON.stringify({ figures: [{ ...figure, better: "up" }] })),
      /'better' must be "higher" or "lower"/,
    );
    assert.throws(
      () => parseHeadlines(JSON.stringify({ figures: [figure, figure] })),
      /figures\[1\]: id 'fixed' appears twice/,
    );
    assert.throws(() => parseHeadlines("{ figures: "), /not JSON/);
    assert.throws(() => parseHeadlines(JSON.stringify({ figures: [] })), /at least one figure/);
  });

  test("a re-measurement within 15% reproduces; the target is read on the figure's better side", () => {
    const close = compare(figure, 0.28);
    assert.ok(Math.abs(close.deviation! - 0.12) < 1e-12, `deviation ${close.deviation}`);
    assert.equal(close.reproduces, true);
    assert.equal(close.meetsTarget, true);
    const far = compare(figure, 0.4);
    assert.equal(far.reproduces, false);
    assert.equal(far.meetsTarget, false);
    const speedUp = compare({ ...figure, better: "higher", unit: "x", value: 1.5, target: 1 }, 0.9);
    assert.equal(speedUp.meetsTarget, false);
    assert.equal(speedUp.reproduces, false);
    const missing = compare(figure, undefined, "--skip http");
    assert.equal(missing.reproduces, undefined);
    assert.equal(missing.note, "--skip http");
  });

  test("prints documented and measured side by side, with the ratio, the 15% verdict and the target", () => {
    const table = formatComparisons([compare(figure, 0.28), compare(figure, undefined, "--skip http")]);
    const lines = table.split("\n");
    assert.equal(lines.length, 4);
    assert.equal(lines[2], "| fixed cost of a 1-trial run | 0.25 s | 0.28 s | 1.12 | yes | <= 0.30 s: met |");
    assert.equal(
      lines[3],
      "| fixed cost of a 1-trial run | 0.25 s | not measured (--skip http) | - | - | <= 0.30 s: not measured |",
    );
  });

  test("formats values as the doc prints them", () => {
    assert.equal(formatValue(2408.4, "trials/s"), "2,408 trials/s");
    assert.equal(formatValue(1.4567, "x"), "1.46x");
    assert.equal(formatValue(93.04, "%"), "93.0%");
  });

  test("finds a figure the doc does not quote with its documented value", () => {
    const doc = "| figure | value |\n| --- | --- |\n| fixed cost of a 1-trial run | 0.25 s | npm run bench:http |\n";
    assert.deepEqual(unquotedFigures(doc, [figure]), []);
    assert.deepEqual(unquotedFigures(doc.replace("0.25 s", "0.24 s"), [figure]), [figure]);
  });

  test("docs/PERFORMANCE.md quotes every figure of bench/headline.json as it stands there", () => {
    const figures = readHeadlines(join(REPO, "bench/headline.json"));
    const doc = readFileSync(join(REPO, "docs/PERFORMANCE.md"), "utf8");
    assert.deepEqual(
      unquotedFigures(doc, figures).map((f) => f.id),
      [],
    );
  });
});
