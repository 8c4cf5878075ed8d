/**
 * Attempt-units of an agent study (GAIA comparison App. D/E): one per question x attempt x model x
 * scaffold, each in exactly one outcome bucket, and the three slices every agent analysis is
 * reported under (section 4).
 */
import type { AgentsPlan } from "../../contracts/analysis/agents.js";
import { type AgentFacts, normalizeFlag } from "../core/agent-facts.js";
import { clusterKey, type AnalysisRow, type ItemFacts } from "../core/table.js";

/** App. E's buckets: completed (correct, wrong) or errored (p2l, cf, pdf, bug, other). */
export const OUTCOME_BUCKETS = ["correct", "wrong", "p2l", "cf", "pdf", "bug", "other"] as const;
export type OutcomeBucket = (typeof OUTCOME_BUCKETS)[number];

export const SLICES = ["primary", "robust", "intersection"] as const;
export type SliceName = (typeof SLICES)[number];

/** The flag of a credit-exhaustion rejection: never reached the model, quarantined (App. D). */
export const ZERO_TOKEN_FLAG = "zero_token_rejection";
export const SERIALISATION_BUG_FLAG = "provider_serialisation_bug";
export const PDF_LIMIT_FLAG = "pdf_page_limit";

/** The level label of rows whose items carry no GAIA level. */
export const ALL_LEVELS = "all";

export interface AgentUnit {
  model: string;
  scaffold: string;
  level: string;
  cluster: string;
  bucket: OutcomeBucket;
  /** Completed without an error (correct or wrong). */
  completed: boolean;
  correct: boolean;
  agent: AgentFacts;
  /** The item has a document attachment / any attachment; null when item metadata is unknown. */
  document: boolean | null;
  anyFile: boolean | null;
}

/**
 * The bucket of one unit. The serialisation-bug flag wins over everything (the paper counts every
 * flagged unit as errored, Table 2); a finished trial is correct or wrong (a parse failure, an
 * unscored or truncated answer is wrong); an errored one is p2l (context too long), cf (content
 * filter), pdf (page limit, by flag or bucket) or other.
 */
export function outcomeBucket(row: AnalysisRow, agent: AgentFacts): OutcomeBucket {
  if (agent.flags.includes(SERIALISATION_BUG_FLAG)) return "bug";
  if (!row.errored) return row.outcome === 1 ? "correct" : "wrong";
  const failure = agent.failureBucket;
  if (failure === "context_too_long" || failure === "prompt_too_long") return "p2l";
  if (failure === "content_filter") return "cf";
  if (agent.flags.includes(PDF_LIMIT_FLAG) || failure === PDF_LIMIT_FLAG) return "pdf";
  return "other";
}

function itemFacts(items: ItemFacts | undefined, row: AnalysisRow): Record<string, unknown> | undefined {
  return items?.get(clusterKey(row.benchmark, row.item));
}

/** The GAIA level of the row's item (metadata `level` or `Level`), or ALL_LEVELS. */
export function itemLevel(items: ItemFacts | undefined, row: AnalysisRow): string {
  const meta = itemFacts(items, row);
  const level = meta?.level ?? meta?.Level;
  return level === undefined || level === null || String(level).trim() === "" ? ALL_LEVELS : String(level).trim();
}

const hasAttachmentField = (meta: Record<string, unknown>) => "file_name" in meta || "attachment" in meta;

/**
 * The attachment file name of the row's item ("" for none), or null when no item records one. A
 * tidy table leaves empty `meta.*` cells out, so once any item names a file, one without is none.
 */
function attachmentName(items: ItemFacts | undefined, row: AnalysisRow, known: boolean): string | null {
  if (!known) return null;
  const meta = itemFacts(items, row);
  const name = meta?.file_name ?? meta?.attachment;
  return name === null || name === undefined ? "" : String(name).trim();
}

export interface UnitSet {
  units: AgentUnit[];
  /** Zero-token rejections left out, per cell key (model, scaffold, level). */
  quarantined: Map<string, number>;
}

export function cellKey(model: string, scaffold: string, level: string): string {
  return [model, scaffold, level].join("\u0001");
}

/** The attempt-units of the rows that carry an agent block; zero-token rejections are quarantined. */
export function agentUnits(
  rows: readonly AnalysisRow[],
  facet: string,
  items: ItemFacts | undefined,
  plan: AgentsPlan,
): UnitSet {
  const extensions = new Set(plan.document_extensions.map((e) => e.toLowerCase().replace(/^\./, "")));
  const units: AgentUnit[] = [];
  const quarantined = new Map<string, number>();
  const attachmentsKnown = [...(items?.values() ?? [])].some(hasAttachmentField);
  for (const row of rows) {
    const agent = row.agent;
    if (!agent) continue;
    const scaffold = row.facets[facet] ?? "";
    const level = itemLevel(items, row);
    if (agent.flags.includes(ZERO_TOKEN_FLAG)) {
      const key = cellKey(row.model, scaffold, level);
      quarantined.set(key, (quarantined.get(key) ?? 0) + 1);
      continue;
    }
    const bucket = outcomeBucket(row, agent);
    const file = attachmentName(items, row, attachmentsKnown);
    const extension = file ? (file.split(".").pop() ?? "").toLowerCase() : "";
    units.push({
      model: row.model,
      scaffold,
      level,
      cluster: row.cluster,
      bucket,
      completed: bucket === "correct" || bucket === "wrong",
      correct: bucket === "correct",
      agent,
      document: file === null ? null : file !== "" && extensions.has(extension),
      anyFile: file === null ? null : file !== "",
    });
  }
  return { units, quarantined };
}

/**
 * The units of one slice. primary: every unit (errored = incorrect). robust: units carrying none of
 * the excluded flags. intersection: per level, only the questions for which every model x
 * scaffold cell of that level has at least one completed unit.
 */
export function sliceUnits(units: readonly AgentUnit[], slice: SliceName, plan: AgentsPlan): AgentUnit[] {
  if (slice === "primary") return [...units];
  if (slice === "robust") {
    const excluded = new Set(plan.robust_exclude_flags.map(normalizeFlag));
    return units.filter((u) => !u.agent.flags.some((f) => excluded.has(f)));
  }
  const keep = new Set<string>();
  for (const level of new Set(units.map((u) => u.level))) {
    const atLevel = units.filter((u) => u.level === level);
    const cells = new Set(atLevel.map((u) => `${u.model}\u0001${u.scaffold}`));
    const completedCells = new Map<string, Set<string>>();
    for (const u of atLevel) {
      if (!u.completed) continue;
      const set = completedCells.get(u.cluster) ?? new Set<string>();
      set.add(`${u.model}\u0001${u.scaffold}`);
      completedCells.set(u.cluster, set);
    }
    for (const [cluster, done] of completedCells) if (done.size === cells.size) keep.add(`${level}\u0001${cluster}`);
  }
  return units.filter((u) => keep.has(`${u.level}\u0001${u.cluster}`));
}
