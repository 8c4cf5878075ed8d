/**
 * The Evaluation Conditions card in words: the terminal overview (every line within 120 columns,
 * the headline sentence first) and the Markdown card `profile --out` writes. The JSON is the
 * Profile itself.
 */
import {
  defineTable,
  type Rendering,
  renderMarkdown,
  renderText,
  type ResultColumn,
  type ResultTable,
} from "../core/result-table.js";
import { bracket, clip, md, pct, pp, pValue, wrap } from "../core/text.js";
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

/**
 * One row per model: score, lowest and highest condition (each with its interval) and the spread.
 * The terminal cuts the condition labels and rounds the spread to whole points; the card does neither.
 */
const SCORE_TABLE = defineTable<ModelProfile>({
  name: "profile scores",
  markdownRule: "spaced",
  columns: [
    { key: "model", header: "model", cell: (p) => p.model },
    { key: "score", header: "score [CI]", cell: ({ range }) => `${pct(range.score)} ${interval(range.scoreCi)}` },
    {
      key: "lowest",
      header: "lowest [CI]",
      cell: ({ range }) => `${pct(range.lowest.rate)} ${interval(range.lowest.ci)}`,
    },
    { key: "lowestIn", header: "in", cell: ({ range }, r) => conditionLabel(range.lowest.condition, r) },
    {
      key: "highest",
      header: "highest [CI]",
      cell: ({ range }) => `${pct(range.highest.rate)} ${interval(range.highest.ci)}`,
    },
    { key: "highestIn", header: "in", cell: ({ range }, r) => conditionLabel(range.highest.condition, r) },
    {
      key: "spread",
      header: "spread pp [CI]",
      unit: "pp",
      cell: ({ range }, r) => {
        const digits = r === "text" ? 0 : 1;
        return `${signedPp(range.spread, digits)} ${bracket(range.spreadCi, (v) => signedPp(v, digits))}`;
      },
    },
  ],
});

const conditionLabel = (condition: string, rendering: Rendering) =>
  rendering === "text" ? clip(condition, CONDITION_WIDTH) : condition;

/** The shares of each component per model, with their intervals or (for a narrow overview) without. */
function sharesTable(p: Profile, withInterval: boolean): ResultTable<ModelProfile> {
  return defineTable<ModelProfile>({
    name: "profile shares",
    markdownRule: "spaced",
    columns: [
      { key: "model", header: "model", cell: (profile) => profile.model },
      ...components(p).map(
        (c): ResultColumn<ModelProfile> => ({
          key: `share:${c}`,
          header: c,
          cell: (profile) => shareCell(profile, c, withInterval),
        }),
      ),
      {
        key: "itemSd",
        header: "item sd",
        cell: (profile) => ("error" in profile.axes ? profile.axes.error : profile.axes.itemSd.toFixed(2)),
      },
    ],
  });
}

/** The shares table with intervals, or without them when that would not fit the overview. */
function shareTable(p: Profile): string[] {
  const full = renderText(sharesTable(p, true), p.profiles);
  return full.every((line) => line.length <= WIDTH) ? full : renderText(sharesTable(p, false), p.profiles);
}

function orderText(pair: ModelPair): string {
  const share = pct(pair.conditions ? pair.orderHolds / pair.conditions : null, 0);
  return `${pair.orderHolds}/${pair.conditions} (${share}${pair.orderTied ? `, ${pair.orderTied} tied` : ""})`;
}

const PAIRS_TABLE = defineTable<ModelPair>({
  name: "profile ranking pairs",
  markdownRule: "spaced",
  columns: [
    { key: "pair", header: "pair", cell: (pair) => `${pair.higher} > ${pair.lower}` },
    {
      key: "difference",
      header: "difference pp [CI]",
      unit: "pp",
      cell: (pair) => `${signedPp(pair.difference, 1)} ${bracket(pair.ci, (v) => signedPp(v, 1))}`,
    },
    { key: "items", header: "items +/-", cell: (pair) => `${pair.itemsHigher}/${pair.itemsLower}` },
    { key: "pAdjusted", header: "p adj", cell: (pair) => pValue(pair.pAdjusted) },
    { key: "distinguishable", header: "distinguishable", cell: (pair) => (pair.distinguishable ? "yes" : "no") },
    { key: "order", header: "order holds", cell: orderText },
  ],
});

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
    ...renderText(SCORE_TABLE, p.profiles),
    "",
    "Share of each axis in the model's condition effects (logit GLMM, items as random intercepts):",
    ...shareTable(p),
    "",
    `Ranking (tie groups: not distinguishable after ${p.settings.correction}): ${p.ranking.groups.map((g) => g.join(" = ")).join("  >  ")}`,
    ...renderText(PAIRS_TABLE, p.ranking.pairs),
  ];
  return `${lines.map((line) => clip(line, WIDTH)).join("\n")}\n`;
}

type AxisShare = Extract<ModelProfile["axes"], { shares: unknown }>["shares"][number];

/** The card's level effects: one row per model and component. */
const EFFECTS_TABLE = defineTable<{ model: string; share: AxisShare }>({
  name: "profile level effects",
  markdownRule: "spaced",
  columns: [
    { key: "model", header: "model", cell: (r) => r.model },
    { key: "component", header: "component", cell: (r) => r.share.axis },
    {
      key: "share",
      header: "share [CI]",
      cell: ({ share: s }) => (Number.isFinite(s.share) ? `${pct(s.share)} ${bracket(s.ci, (v) => pct(v))}` : "-"),
    },
    {
      key: "sd",
      header: "sd (logit) [CI]",
      unit: "logit",
      cell: ({ share: s }) => `${s.sd.toFixed(2)} ${bracket(s.sdCi, (v) => v.toFixed(2))}`,
    },
    {
      key: "effects",
      header: "effects (logit)",
      unit: "logit",
      cell: ({ share: s }) =>
        Object.entries(s.effects)
          .map(([level, effect]) => `${level} ${effect >= 0 ? "+" : ""}${effect.toFixed(2)}`)
          .join(", "),
    },
  ],
});

type RankedModel = Profile["ranking"]["models"][number];

const RANKING_TABLE = defineTable<{ rank: number; ranked: RankedModel }>({
  name: "profile ranking",
  markdownRule: "spaced",
  columns: [
    { key: "rank", header: "rank", cell: (r) => String(r.rank) },
    { key: "model", header: "model", cell: (r) => r.ranked.model },
    { key: "score", header: "score", cell: (r) => pct(r.ranked.score) },
    { key: "group", header: "tie group", cell: (r) => String(r.ranked.group) },
  ],
});

const CONDITIONS_TABLE = defineTable<{ model: string; condition: string; rate: number | null }>({
  name: "profile score per condition",
  markdownRule: "spaced",
  columns: [
    { key: "model", header: "model", cell: (r) => r.model },
    { key: "condition", header: "condition", cell: (r) => r.condition },
    { key: "score", header: "score", cell: (r) => pct(r.rate) },
  ],
});

/** The Markdown card: the headline, then every table in full, with the level effects and every condition's score. */
export function profileMarkdown(p: Profile): string {
  const conditionRows = p.profiles.flatMap(({ model, range }) =>
    range.conditions.map((c) => ({ model, condition: c.condition, rate: c.rate })),
  );
  const effectsRows = p.profiles.flatMap((profile) =>
    "error" in profile.axes ? [] : profile.axes.shares.map((share) => ({ model: profile.model, share })),
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
    ...renderMarkdown(SCORE_TABLE, p.profiles),
    "",
    "## Share of each axis in the condition effects",
    "",
    "Logistic GLMM per model, `y ~ axes + study + benchmark + (1 | item)`, each axis sum-to-zero coded; an axis's",
    "variance is the mean square of its level effects (logit scale) less their sampling variance, at least 0; its",
    "share is that over the sum of all components (- when every component is within its noise). Intervals: draws",
    "of the fixed effects from their fitted normal distribution.",
    "",
    ...renderMarkdown(sharesTable(p, true), p.profiles),
    "",
    ...renderMarkdown(EFFECTS_TABLE, effectsRows),
    "",
    "## Ranking and tie groups",
    "",
    ...renderMarkdown(
      RANKING_TABLE,
      p.ranking.models.map((ranked, i) => ({ rank: i + 1, ranked })),
    ),
    "",
    ...renderMarkdown(PAIRS_TABLE, p.ranking.pairs),
    "",
    "## Score per condition",
    "",
    ...renderMarkdown(CONDITIONS_TABLE, conditionRows),
    "",
  ].join("\n");
}
