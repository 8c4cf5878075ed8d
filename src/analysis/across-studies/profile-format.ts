/**
 * The Evaluation Conditions card in words: the terminal overview (every line within 120 columns,
 * the headline sentence first) and the Markdown card `profile --out` writes. The JSON is the
 * Profile itself.
 */
import { bracket, clip, md, pct, pp, pValue, textTable, wrap } from "../text.js";
import type { ModelProfile, Profile } from "./profile.js";
import { BETWEEN_STUDIES } from "./profile-axes.js";
import type { ModelPair } from "./profile-ranking.js";

const WIDTH = 120;
/** Condition labels in the overview's score table are cut to this (the card holds them whole). */
const CONDITION_WIDTH = 22;

const percentNoSign = (v: number) => pct(v, 0).replace("%", "");
const interval = (ci: [number, number] | null) => (ci ? bracket(ci, percentNoSign) : "");

/** The components of the shares tables: the axes in pool order, then the between-studies offsets. */
function components(p: Profile): string[] {
  return [...p.axes.map((a) => a.name), ...(p.studies.length > 1 ? [BETWEEN_STUDIES] : [])];
}

function shareCell(profile: ModelProfile, component: string, withInterval: boolean): string {
  if ("error" in profile.axes) return "-";
  const share = profile.axes.shares.find((s) => s.axis === component);
  // An undefined share (nothing beyond noise in any component) has no interval to read.
  if (!share || !Number.isFinite(share.share)) return "-";
  return withInterval ? `${pct(share.share, 0)} ${interval(share.ci)}` : pct(share.share, 0);
}

function settingsText(p: Profile): string {
  const s = p.settings;
  const axes = p.axes.map((a) => `${a.name} (${a.levels.length} levels)`).join(", ");
  return (
    `Pooled: ${p.models.length} models on ${p.items} shared items (${p.benchmarks.join(", ")}), ${p.conditions.length} conditions; ` +
    `axes: ${axes}; ${s.population.toUpperCase()}; ${Math.round(100 * s.level)}% intervals from ${s.resamples} item ` +
    `resamples (scores, differences) and ${s.resamples} draws of each GLMM's fixed effects (shares), seed ${s.seed}; ` +
    `exact McNemar on items, ${s.correction} across ` +
    `${p.ranking.pairs.length} pairs at alpha ${s.alpha}.`
  );
}

const signedPp = (v: number, digits: number) => pp(v, digits).replace(" pp", "");

/** One row per model: score, lowest and highest condition (each with its interval) and the spread. */
function scoreRows(p: Profile, conditionWidth: number, digits: number): string[][] {
  return p.profiles.map(({ model, range }) => [
    model,
    `${pct(range.score)} ${interval(range.scoreCi)}`,
    `${pct(range.lowest.rate)} ${interval(range.lowest.ci)}`,
    clip(range.lowest.condition, conditionWidth),
    `${pct(range.highest.rate)} ${interval(range.highest.ci)}`,
    clip(range.highest.condition, conditionWidth),
    `${signedPp(range.spread, digits)} ${bracket(range.spreadCi, (v) => signedPp(v, digits))}`,
  ]);
}

const SCORE_HEADER = ["model", "score [CI]", "lowest [CI]", "in", "highest [CI]", "in", "spread pp [CI]"];

function shareRows(p: Profile, withInterval: boolean): string[][] {
  return p.profiles.map((profile) => [
    profile.model,
    ...components(p).map((c) => shareCell(profile, c, withInterval)),
    "error" in profile.axes ? profile.axes.error : profile.axes.itemSd.toFixed(2),
  ]);
}

/** The shares table with intervals, or without them when that would not fit the overview. */
function shareTable(p: Profile): string[] {
  const header = ["model", ...components(p), "item sd"];
  const full = textTable(header, shareRows(p, true));
  return full.every((line) => line.length <= WIDTH) ? full : textTable(header, shareRows(p, false));
}

function orderText(pair: ModelPair): string {
  const share = pct(pair.conditions ? pair.orderHolds / pair.conditions : null, 0);
  return `${pair.orderHolds}/${pair.conditions} (${share}${pair.orderTied ? `, ${pair.orderTied} tied` : ""})`;
}

function pairRows(p: Profile): string[][] {
  return p.ranking.pairs.map((pair) => [
    `${pair.higher} > ${pair.lower}`,
    `${signedPp(pair.difference, 1)} ${bracket(pair.ci, (v) => signedPp(v, 1))}`,
    `${pair.itemsHigher}/${pair.itemsLower}`,
    pValue(pair.pAdjusted),
    pair.distinguishable ? "yes" : "no",
    orderText(pair),
  ]);
}

const PAIR_HEADER = ["pair", "difference pp [CI]", "items +/-", "p adj", "distinguishable", "order holds"];

function fitNotes(p: Profile): string[] {
  return p.profiles.flatMap((profile) => {
    if ("error" in profile.axes) return [`${profile.model}: ${profile.axes.error}`];
    const notes: string[] = [];
    if (!profile.axes.converged) notes.push(`${profile.model}: the GLMM did not meet lme4's gradient tolerance`);
    if (!profile.axes.draws)
      notes.push(`${profile.model}: the fixed effects' covariance is singular: no share intervals`);
    return notes;
  });
}

/** The terminal overview: the headline, what was pooled, scores, axis shares, ranking and pairs. */
export function formatProfile(p: Profile): string {
  const lines = [
    ...wrap(p.headline, WIDTH, "  "),
    "",
    ...p.studies.map((s) => `${s.label}: ${s.path} (${s.models} models, ${s.items} items)`),
    ...wrap(settingsText(p), WIDTH, "  "),
    ...[...p.notes, ...fitNotes(p)].flatMap((note) => wrap(`Note: ${note}`, WIDTH, "  ")),
    "",
    "Score across the conditions studied:",
    ...textTable(SCORE_HEADER, scoreRows(p, CONDITION_WIDTH, 0)),
    "",
    "Share of each axis in the model's condition effects (logit GLMM, items as random intercepts):",
    ...shareTable(p),
    "",
    `Ranking (tie groups: not distinguishable after ${p.settings.correction}): ${p.ranking.groups.map((g) => g.join(" = ")).join("  >  ")}`,
    ...textTable(PAIR_HEADER, pairRows(p)),
  ];
  return `${lines.map((line) => clip(line, WIDTH)).join("\n")}\n`;
}

function mdRow(cells: string[]): string {
  return `| ${cells.map(md).join(" | ")} |`;
}

function mdTable(header: string[], rows: string[][]): string[] {
  return [mdRow(header), mdRow(header.map(() => "---")), ...rows.map(mdRow)];
}

function effectsRows(p: Profile): string[][] {
  return p.profiles.flatMap((profile) =>
    "error" in profile.axes
      ? []
      : profile.axes.shares.map((s) => [
          profile.model,
          s.axis,
          Number.isFinite(s.share) ? `${pct(s.share)} ${bracket(s.ci, (v) => pct(v))}` : "-",
          `${s.sd.toFixed(2)} ${bracket(s.sdCi, (v) => v.toFixed(2))}`,
          Object.entries(s.effects)
            .map(([level, effect]) => `${level} ${effect >= 0 ? "+" : ""}${effect.toFixed(2)}`)
            .join(", "),
        ]),
  );
}

/** The Markdown card: the headline, then every table in full, with the level effects and every condition's score. */
export function profileMarkdown(p: Profile): string {
  const conditionRows = p.profiles.flatMap(({ model, range }) =>
    range.conditions.map((c) => [model, c.condition, pct(c.rate)]),
  );
  return [
    "# Evaluation Conditions card",
    "",
    `**${md(p.headline)}**`,
    "",
    ...p.studies.map((s) => `- ${s.label}: \`${md(s.path)}\` (${s.models} models, ${s.items} items)`),
    `- ${md(settingsText(p))}`,
    ...[...p.notes, ...fitNotes(p)].map((note) => `- Note: ${md(note)}`),
    "",
    "## Score across the conditions studied",
    "",
    ...mdTable(SCORE_HEADER, scoreRows(p, Number.POSITIVE_INFINITY, 1)),
    "",
    "## Share of each axis in the condition effects",
    "",
    "Logistic GLMM per model, `y ~ axes + study + benchmark + (1 | item)`, each axis sum-to-zero coded; an axis's",
    "variance is the mean square of its level effects (logit scale) less their sampling variance, at least 0; its",
    "share is that over the sum of all components (- when every component is within its noise). Intervals: draws",
    "of the fixed effects from their fitted normal distribution.",
    "",
    ...mdTable(["model", ...components(p), "item sd"], shareRows(p, true)),
    "",
    ...mdTable(["model", "component", "share [CI]", "sd (logit) [CI]", "effects (logit)"], effectsRows(p)),
    "",
    "## Ranking and tie groups",
    "",
    ...mdTable(
      ["rank", "model", "score", "tie group"],
      p.ranking.models.map((m, i) => [String(i + 1), m.model, pct(m.score), String(m.group)]),
    ),
    "",
    ...mdTable(PAIR_HEADER, pairRows(p)),
    "",
    "## Score per condition",
    "",
    ...mdTable(["model", "condition", "score"], conditionRows),
    "",
  ].join("\n");
}
