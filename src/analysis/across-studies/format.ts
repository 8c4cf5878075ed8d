/**
 * A comparison of two studies in words: the terminal overview (every line within 120 columns) and
 * the Markdown card `compare --out` writes. The JSON is the Comparison itself.
 */
import { bracket, clip, md, pct, pp, pValue, textTable, wrap } from "../text.js";
import { type Comparison, comparedCellLabel, type FlippedItem, type PairResult } from "./compare.js";

/** The widest line the overview prints. */
export const OVERVIEW_WIDTH = 120;

/** Flipped items the overview lists (the card and the JSON hold them all). */
export const OVERVIEW_FLIPS = 10;

/** The verdict without its detail (the margin is in the settings line, the items in their column). */
function shortVerdict(verdict: string): string {
  return verdict.replace(/:.*$/, "").replace(/ within .*$/, "");
}

function pairRow(p: PairResult): string[] {
  const s = p.statistics;
  return [
    comparedCellLabel(p),
    String(p.shared),
    pct(p.rateA),
    pct(p.rateB),
    s ? `${pp(s.difference).replace(" pp", "")} ${bracket(s.ci, (v) => pp(v).replace(" pp", ""))}` : "-",
    s ? `${s.lost}/${s.gained}` : "-",
    s ? pValue(s.pAdjusted) : "-",
    shortVerdict(p.verdict),
  ];
}

const PAIR_HEADER = [
  "model | condition | benchmark",
  "items",
  "A",
  "B",
  "B - A pp [95% CI]",
  "lost/gained",
  "p adj",
  "verdict",
];

/** The pairs' table, its first column (the cell's names) cut so that every line fits the overview. */
function pairTable(pairs: readonly PairResult[]): string[] {
  const rows = pairs.map(pairRow);
  const widths = PAIR_HEADER.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const others = widths.slice(1).reduce((total, width) => total + width + 2, 0);
  const cellWidth = Math.max(12, OVERVIEW_WIDTH - others);
  return textTable(
    PAIR_HEADER,
    rows.map(([cell, ...more]) => [clip(cell, cellWidth), ...more]),
  );
}

function settingsLine(c: Comparison): string {
  const s = c.settings;
  return (
    `Paired on shared items (${s.population.toUpperCase()}); bootstrap ${s.resamples} resamples over items, seed ${s.seed}; ` +
    `exact McNemar, ${s.correction} across ${c.pairs.filter((p) => p.statistics).length} pairs at alpha ${s.alpha}; ` +
    `TOST margin +/-${(100 * s.margin).toFixed(1)} pp; fewer than ${s.minCases} shared items is not interpretable.`
  );
}

/** A flipped item; with a viewer link, the link first, so that clipping the line never cuts it. */
function flipText(f: FlippedItem): string {
  const change = `${comparedCellLabel(f)} | ${f.item}: ${pct(f.rateA, 0)} -> ${pct(f.rateB, 0)}`;
  if (f.view) return `${f.view}  ${change}`;
  const trials = (ids: string[]) => (ids.length ? ids.join(",") : "no trial id");
  return `${change} (A ${trials(f.trialsA)}; B ${trials(f.trialsB)})`;
}

/** How to open the flipped items side by side, when both sides are studies. */
function viewerLine(c: Comparison): string[] {
  return c.viewer && c.flipped.length ? [`Side by side: run \`${c.viewer.command}\` and open each path below.`] : [];
}

function unmatchedLines(c: Comparison): string[] {
  const line = (side: string, cells: string[]) =>
    cells.length
      ? [
          `Only in ${side} (${cells.length} cells, not compared): ${cells.slice(0, 5).join("; ")}${cells.length > 5 ? "; ..." : ""}`,
        ]
      : [];
  return [...line("A", c.unmatchedA), ...line("B", c.unmatchedB)];
}

/** The terminal overview: what was compared, one row per matched pair of cells, the top flipped items. */
export function formatComparison(c: Comparison): string {
  const lines = [
    `A: ${c.a}`,
    `B: ${c.b}`,
    ...wrap(settingsLine(c), OVERVIEW_WIDTH, "  "),
    "",
    ...pairTable(c.pairs),
    "",
    `Flipped items: ${c.flipped.length}${c.flipped.length > OVERVIEW_FLIPS ? ` (first ${OVERVIEW_FLIPS}; --json or --out for all)` : ""}`,
    ...viewerLine(c).flatMap((line) => wrap(line, OVERVIEW_WIDTH, "  ")),
    ...c.flipped.slice(0, OVERVIEW_FLIPS).map((f) => `  ${flipText(f)}`),
    ...unmatchedLines(c).flatMap((line) => wrap(line, OVERVIEW_WIDTH, "  ")),
  ];
  return `${lines.map((line) => clip(line, OVERVIEW_WIDTH)).join("\n")}\n`;
}

/** The Markdown card: the same pairs, every flipped item with its two trials. */
export function comparisonMarkdown(c: Comparison): string {
  const row = (cells: string[]) => `| ${cells.map(md).join(" | ")} |`;
  const pairs = c.pairs.map((p) => {
    const s = p.statistics;
    return row([
      p.model,
      p.condition,
      p.benchmark,
      `${p.shared} of ${p.casesA} / ${p.casesB}`,
      pct(p.rateA),
      pct(p.rateB),
      s ? `${pp(s.difference)} ${bracket(s.ci, pp)}` : "-",
      s ? `${s.lost} / ${s.gained}` : "-",
      s ? pValue(s.p) : "-",
      s ? pValue(s.pAdjusted) : "-",
      s ? bracket(s.tostCi, pp) : "-",
      p.verdict,
    ]);
  });
  const flips = c.flipped.map((f) =>
    row([
      f.model,
      f.condition,
      f.benchmark,
      f.item,
      pct(f.rateA, 0),
      pct(f.rateB, 0),
      f.trialsA.join(", "),
      f.trialsB.join(", "),
      ...(c.viewer ? [f.view ?? "-"] : []),
    ]),
  );
  const flipHeader = ["model", "condition", "benchmark", "item", "A", "B", "A trials", "B trials"];
  if (c.viewer) flipHeader.push("side by side");
  return [
    "# Comparison of two studies",
    "",
    `- A: \`${md(c.a)}\``,
    `- B: \`${md(c.b)}\``,
    `- ${settingsLine(c)}`,
    ...unmatchedLines(c).map((line) => `- ${md(line)}`),
    "",
    "## Matched cells",
    "",
    row([
      "model",
      "condition",
      "benchmark",
      "shared of A / B items",
      "A",
      "B",
      "B - A [95% CI]",
      "lost / gained",
      "McNemar p",
      "p adj",
      "TOST CI",
      "verdict",
    ]),
    row(Array(12).fill("---")),
    ...pairs,
    "",
    `## Flipped items (${c.flipped.length})`,
    "",
    "Largest change first. A trial is named by its id in its own study (`parallax view` opens it).",
    ...(c.viewer && flips.length
      ? [`Side by side: run \`${c.viewer.command}\` and open each item's path in the viewer.`]
      : []),
    "",
    ...(flips.length ? [row(flipHeader), row(Array(flipHeader.length).fill("---")), ...flips] : ["No item changed."]),
    "",
  ].join("\n");
}
