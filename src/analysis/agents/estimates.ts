/**
 * Everything the agent analyses estimate on one slice at one level, from ONE question-clustered
 * bootstrap (GAIA comparison 4.1.2-4.4): each resample draws the level's questions once, and the
 * same draws feed every cell, so the scaffold gap, the pairwise contrasts and the difference of
 * differences see shared resamples across scaffolds (4.1.3, App. H), and the seed is the same on
 * every slice (App. F).
 */
import type { AgentsPlan } from "../../contracts/analysis/agents.js";
import {
  addClusterValue,
  type CellQuantity,
  type CellView,
  type ClusterValueRows,
  clusterQuantities,
  differenceOfDifferences,
  emptyClusterValueRows,
  type Interval,
  maxMinGap,
  type QuantityEstimate,
} from "../../stats/index.js";
import type { AgentUnit } from "./units.js";

/** A point estimate and its 95% clustered-bootstrap CI; null where undefined. */
export interface Estimate {
  estimate: number | null;
  ci: Interval | null;
}

/** The behavioural signatures of a cell (section 4.3, App. L/M). */
export interface Behaviour {
  toolCalls: Estimate;
  outputTokens: Estimate;
  inputTokens: Estimate;
  cacheReadTokens: Estimate;
  cacheWriteTokens: Estimate;
  /** Mean working time of the completed units. */
  workingSeconds: Estimate;
  /** Recovered / units with a mid-trajectory tool error; estimate null when none had one. */
  recovery: Estimate & { recovered: number; withError: number };
}

export interface CostPerCorrect {
  /**
   * Whether the cell's model has prices: some unit of the model costs more than 0. A model whose
   * every unit costs 0 or nothing recorded (a simulated or local model without a declared price)
   * is unpriced, and its cost per correct reads "n/a: no prices", never $0.
   */
  priced: boolean;
  /** Cost of every unit (all executions where recorded). */
  totalUsd: number;
  /** Total cost / correct units. */
  realized: Estimate;
  /** Cost of the completed units (latest execution) / correct units. */
  happyPath: Estimate;
}

const NO_ESTIMATE: Estimate = { estimate: null, ci: null };

/** A unit's realized cost (every execution where recorded), 0 when none is recorded. */
const unitCost = (u: AgentUnit) => u.agent.realizedCostUsd ?? u.agent.costUsd ?? 0;

/** The models with prices: some unit of theirs costs more than 0. */
export function pricedModels(units: readonly AgentUnit[]): Set<string> {
  return new Set(units.filter((u) => unitCost(u) > 0).map((u) => u.model));
}

export interface CellEstimates {
  accuracy: Estimate;
  behaviour: Behaviour;
  cost: CostPerCorrect;
}

export interface GapEstimate {
  model: string;
  gap: Estimate;
  /** The scaffolds at the max and at the min (point estimates). */
  max: string | null;
  min: string | null;
}

export interface PairEstimate {
  model: string;
  /** first - second, in the scaffold level order. */
  first: string;
  second: string;
  difference: Estimate;
}

export const FILE_SUBSETS = ["documents", "any_file"] as const;
export type FileSubset = (typeof FILE_SUBSETS)[number];
export type DodReading = "supports" | "contradicts" | "inconclusive";

export interface DodEstimate {
  subset: FileSubset;
  model: string;
  /** (treatment - control on file tasks) - (treatment - control on the rest). */
  treatment: string;
  control: string;
  fileQuestions: number;
  otherQuestions: number;
  dod: Estimate;
  /** supports: CI strictly above 0; contradicts: strictly below; else inconclusive (null: undefined). */
  reading: DodReading | null;
  /** The pair the plan's H4 names. */
  h4: boolean;
}

export interface SliceLevelEstimates {
  cells: Map<string, CellEstimates>;
  gaps: GapEstimate[];
  pairwise: PairEstimate[];
  dod: DodEstimate[];
}

const SEP = "\u0001";
const cell = (metric: string, model: string, scaffold: string) => [metric, model, scaffold].join(SEP);

/** The rows of one slice and level: one per unit and metric it defines. */
function metricRows(units: readonly AgentUnit[]): ClusterValueRows {
  const rows = emptyClusterValueRows();
  for (const u of units) {
    const add = (metric: string, value: number | null) =>
      addClusterValue(rows, u.cluster, cell(metric, u.model, u.scaffold), value);
    const a = u.agent;
    const correct = u.correct ? 1 : 0;
    add("acc", correct);
    if (u.document !== null) add(u.document ? "documents:in" : "documents:out", correct);
    if (u.anyFile !== null) add(u.anyFile ? "any_file:in" : "any_file:out", correct);
    add("toolCalls", a.toolCalls);
    add("outputTokens", a.outputTokens);
    add("inputTokens", a.inputTokens);
    add("cacheReadTokens", a.cacheReadTokens);
    add("cacheWriteTokens", a.cacheWriteTokens);
    if (u.completed) add("workingSeconds", a.workingSeconds);
    if (a.toolErrorMidTrajectory === true) add("recovery", (a.recoveredAfterToolError ?? u.correct) ? 1 : 0);
    add("cost", a.realizedCostUsd ?? a.costUsd ?? 0);
    if (u.completed) add("costCompleted", a.costUsd ?? 0);
  }
  return rows;
}

const BEHAVIOUR_METRICS = [
  "toolCalls",
  "outputTokens",
  "inputTokens",
  "cacheReadTokens",
  "cacheWriteTokens",
  "workingSeconds",
  "recovery",
] as const;

function toEstimate(q: QuantityEstimate | undefined): Estimate {
  if (!q || !Number.isFinite(q.estimate)) return { estimate: null, ci: null };
  return { estimate: q.estimate, ci: q.ci };
}

export function dodReading(ci: Interval | null): DodReading | null {
  if (!ci) return null;
  if (ci[0] > 0) return "supports";
  if (ci[1] < 0) return "contradicts";
  return "inconclusive";
}

/** Scaffold pairs (later, earlier) in level order: s2-s1, s3-s1, s3-s2 for three scaffolds. */
function laterEarlierPairs(scaffolds: readonly string[]): [string, string][] {
  const pairs: [string, string][] = [];
  for (let j = 1; j < scaffolds.length; j++) for (let i = 0; i < j; i++) pairs.push([scaffolds[j], scaffolds[i]]);
  return pairs;
}

/** What every slice is estimated against: the models, the scaffolds in order, the plan and H4's pair. */
export interface AgentDesign {
  models: readonly string[];
  scaffolds: readonly string[];
  plan: AgentsPlan;
  h4: { treatment: string; control: string };
}

/** Every estimate of one slice at one level, with its clustered-bootstrap CI. */
export function sliceLevelEstimates(units: readonly AgentUnit[], design: AgentDesign): SliceLevelEstimates {
  const { models, scaffolds, plan, h4 } = design;
  const dodPairs = laterEarlierPairs(scaffolds);
  const h4Known = scaffolds.includes(h4.treatment) && scaffolds.includes(h4.control) && h4.treatment !== h4.control;
  if (h4Known && !dodPairs.some(([t, c]) => t === h4.treatment && c === h4.control))
    dodPairs.push([h4.treatment, h4.control]);
  // Cell names are built once here, not in each resample.
  const quantities = new Map<string, CellQuantity>();
  const mean = (name: string) => (v: CellView) => v.mean(name);
  for (const m of models) {
    const acc = scaffolds.map((s) => mean(cell("acc", m, s)));
    scaffolds.forEach((s, i) => {
      quantities.set(cell("acc", m, s), acc[i]);
      for (const metric of BEHAVIOUR_METRICS) quantities.set(cell(metric, m, s), mean(cell(metric, m, s)));
      const correctName = cell("acc", m, s);
      const perCorrect = (costName: string) => (v: CellView) => {
        const correct = v.sum(correctName);
        return correct > 0 ? v.sum(costName) / correct : Number.NaN;
      };
      quantities.set(cell("cpcRealized", m, s), perCorrect(cell("cost", m, s)));
      quantities.set(cell("cpcHappy", m, s), perCorrect(cell("costCompleted", m, s)));
    });
    quantities.set(cell("gap", m, ""), (v) => maxMinGap(acc.map((f) => f(v))).gap);
    for (let i = 0; i < scaffolds.length; i++)
      for (let j = i + 1; j < scaffolds.length; j++) {
        const [a, b] = [acc[i], acc[j]];
        quantities.set(cell(`pair:${scaffolds[i]}${SEP}${scaffolds[j]}`, m, ""), (v) => a(v) - b(v));
      }
    for (const subset of FILE_SUBSETS)
      for (const [t, c] of dodPairs) {
        const [inT, inC, outT, outC] = [
          mean(cell(`${subset}:in`, m, t)),
          mean(cell(`${subset}:in`, m, c)),
          mean(cell(`${subset}:out`, m, t)),
          mean(cell(`${subset}:out`, m, c)),
        ];
        quantities.set(cell(`dod:${subset}${SEP}${t}${SEP}${c}`, m, ""), (v) =>
          differenceOfDifferences(inT(v), inC(v), outT(v), outC(v)),
        );
      }
  }
  const result = clusterQuantities(metricRows(units), quantities, { resamples: plan.resamples, seed: plan.seed });
  const get = (metric: string, m: string, s: string) => toEstimate(result.get(cell(metric, m, s)));

  const priced = pricedModels(units);
  const cells = new Map<string, CellEstimates>();
  for (const m of models)
    for (const s of scaffolds) {
      const inCell = units.filter((u) => u.model === m && u.scaffold === s);
      if (inCell.length === 0) continue;
      const withError = inCell.filter((u) => u.agent.toolErrorMidTrajectory === true);
      const behaviour = Object.fromEntries(BEHAVIOUR_METRICS.map((k) => [k, get(k, m, s)])) as unknown as Behaviour;
      behaviour.recovery = {
        ...behaviour.recovery,
        recovered: withError.filter((u) => u.agent.recoveredAfterToolError ?? u.correct).length,
        withError: withError.length,
      };
      cells.set(`${m}${SEP}${s}`, {
        accuracy: get("acc", m, s),
        behaviour,
        cost: priced.has(m)
          ? {
              priced: true,
              totalUsd: inCell.reduce((sum, u) => sum + unitCost(u), 0),
              realized: get("cpcRealized", m, s),
              happyPath: get("cpcHappy", m, s),
            }
          : { priced: false, totalUsd: 0, realized: NO_ESTIMATE, happyPath: NO_ESTIMATE },
      });
    }

  const gaps: GapEstimate[] = models.map((m) => {
    const point = maxMinGap(scaffolds.map((s) => cells.get(`${m}${SEP}${s}`)?.accuracy.estimate ?? Number.NaN));
    return {
      model: m,
      gap: get("gap", m, ""),
      max: point.max >= 0 ? scaffolds[point.max] : null,
      min: point.min >= 0 ? scaffolds[point.min] : null,
    };
  });
  const pairwise: PairEstimate[] = models.flatMap((m) =>
    scaffolds.flatMap((a, i) =>
      scaffolds
        .slice(i + 1)
        .map((b) => ({ model: m, first: a, second: b, difference: get(`pair:${a}${SEP}${b}`, m, "") })),
    ),
  );
  const dod: DodEstimate[] = [];
  for (const subset of FILE_SUBSETS) {
    const known = units.filter((u) => (subset === "documents" ? u.document : u.anyFile) !== null);
    if (known.length === 0) continue;
    const inside = (u: AgentUnit) => (subset === "documents" ? u.document : u.anyFile) === true;
    const fileQuestions = new Set(known.filter(inside).map((u) => u.cluster)).size;
    const otherQuestions = new Set(known.filter((u) => !inside(u)).map((u) => u.cluster)).size;
    for (const m of models)
      for (const [t, c] of dodPairs) {
        const estimate = get(`dod:${subset}${SEP}${t}${SEP}${c}`, m, "");
        dod.push({
          subset,
          model: m,
          treatment: t,
          control: c,
          fileQuestions,
          otherQuestions,
          dod: estimate,
          reading: estimate.estimate === null ? null : dodReading(estimate.ci),
          h4: t === h4.treatment && c === h4.control,
        });
      }
  }
  return { cells, gaps, pairwise, dod };
}
