/**
 * A comparison of two studies in words: the terminal overview (every line within 120 columns) and
 * the Markdown card `compare --out` writes. The JSON is the Comparison itself.
 */
import { defineTable, renderMarkdown, renderText, type ResultColumn } from "../core/result-table.js";
import { bracket, clip, md, pct, pp, pValue, wrap } from "../core/text.js";
import { type Comparison, comparedCellLabel, type FlippedItem, type PairResult } from "./compare.js";

/** The widest line the overview prints. */
export const OVERVIEW_WIDTH = 120;

/** Flipped items the overview lists (the card and the JSON hold them all). */
export const OVERVIEW_FLIPS = 10;

/** The verdict without its detail (the margin is in the settings line, the items in their column). */
function shortVerdict(verdict: string): string {
  return verdict.replace(/:.*$/, "").replace(/ within .*$/, "");
}

const noPp = (v: number) => pp(v).replace(" pp", "");

/**
 * The matched pairs: the terminal names the cell in one column cut to fit 120 columns, shortens
 * the verdict and keeps the adjusted p; the card splits the cell's names and adds the McNemar p
 * and the TOST interval.
 */
const PAIRS_TABLE = defineTable<PairResult>({
  name: "compared pairs",
  markdownRule: "spaced",
  columns: [
    {
      key: "cell",
      header: "model | condition | benchmark",
      cell: (p) => comparedCellLabel(p),
      shownIn: ["text"],
      clippedToFit: 12,
    },
    { key: "model", header: "model", cell: (p) => p.model, shownIn: ["markdown"] },
    { key: "condition", header: "condition", cell: (p) => p.condition, shownIn: ["markdown"] },
    { key: "benchmark", header: "benchmark", cell: (p) => p.benchmark, shownIn: ["markdown"] },
    {
      key: "items",
      header: { text: "items", markdown: "shared of A / B items" },
      cell: (p, r) => (r === "text" ? String(p.shared) : `${p.shared} of ${p.casesA} / ${p.casesB}`),
    },
    { key: "a", header: "A", cell: (p) => pct(p.rateA) },
    { key: "b", header: "B", cell: (p) => pct(p.rateB) },
    {
      key: "difference",
      header: { text: "B - A pp [95% CI]", markdown: "B - A [95% CI]" },
      unit: "pp",
      cell: ({ statistics: s }, r) => {
        if (!s) return "-";
        return r === "text"
          ? `${noPp(s.difference)} ${bracket(s.ci, noPp)}`
          : `${pp(s.difference)} ${bracket(s.ci, pp)}`;
      },
    },
    {
      key: "flips",
      header: { text: "lost/gained", markdown: "lost / gained" },
      cell: ({ statistics: s }, r) => (s ? (r === "text" ? `${s.lost}/${s.gained}` : `${s.lost} / ${s.gained}`) : "-"),
    },
    {
      key: "p",
      header: "McNemar p",
      cell: ({ statistics: s }) => (s ? pValue(s.p) : "-"),
      shownIn: ["markdown"],
    },
    { key: "pAdjusted", header: "p adj", cell: ({ statistics: s }) => (s ? pValue(s.pAdjusted) : "-") },
    {
      key: "tost",
      header: "TOST CI",
      cell: ({ statistics: s }) => (s ? bracket(s.tostCi, pp) : "-"),
      shownIn: ["markdown"],
    },
    {
      key: "verdict",
      header: "verdict",
      // The margin is in the settings line and the items in their column: the terminal drops the verdict's detail.
      cell: (p, r) => (r === "text" ? shortVerdict(p.verdict) : p.verdict),
    },
  ],
});

/** The card's flipped items, with their viewer paths when both sides are studies. */
function flipsTable(withViewer: boolean) {
  const columns: ResultColumn<FlippedItem>[] = [
    { key: "model", header: "model", cell: (f) => f.model },
    { key: "condition", header: "condition", cell: (f) => f.condition },
    { key: "benchmark", header: "benchmark", cell: (f) => f.benchmark },
    { key: "item", header: "item", cell: (f) => f.item },
    { key: "a", header: "A", cell: (f) => pct(f.rateA, 0) },
    { key: "b", header: "B", cell: (f) => pct(f.rateB, 0) },
    { key: "trialsA", header: "A trials", cell: (f) => f.trialsA.join(", ") },
    { key: "trialsB", header: "B trials", cell: (f) => f.trialsB.join(", ") },
  ];
  if (withViewer) columns.push({ key: "view", header: "side by side", cell: (f) => f.view ?? "-" });
  return defineTable<FlippedItem>({ name: "flipped items", markdownRule: "spaced", columns });
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
    ...renderText(PAIRS_TABLE, c.pairs, { width: OVERVIEW_WIDTH }),
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
    ...renderMarkdown(PAIRS_TABLE, c.pairs),
    "",
    `## Flipped items (${c.flipped.length})`,
    "",
    "Largest change first. A trial is named by its id in its own study (`parallax view` opens it).",
    ...(c.viewer && c.flipped.length
      ? [`Side by side: run \`${c.viewer.command}\` and open each item's path in the viewer.`]
      : []),
    "",
    ...(c.flipped.length ? renderMarkdown(flipsTable(Boolean(c.viewer)), c.flipped) : ["No item changed."]),
    "",
  ].join("\n");
}
