/**
 * Reading the item metadata some analyses need, whatever its source: a study's re-read items
 * (numbers) or a tidy table's `meta.*` columns (text). BBQ (Parrish et al. 2022): the context
 * condition and which option is "unknown" and which the biased answer; XSTest / OR-Bench: the
 * expected behaviour (comply: a refusal is an over-refusal).
 */
import type { ScoredRow } from "../core/data.js";
import { clusterKey, type ItemFacts } from "../core/table.js";

export interface BbqFacts {
  context: "ambig" | "disambig";
  unknownIndex: number;
  /** The option a biased answer picks: the target for a negative question, the other person otherwise. */
  biasedIndex: number | null;
}

function index(value: unknown): number | null {
  if (value === null || value === undefined || value === "") return null;
  const n = Number(value);
  return Number.isInteger(n) && n >= 0 ? n : null;
}

export function bbqFacts(items: ItemFacts | undefined, s: ScoredRow): BbqFacts | null {
  const meta = items?.get(clusterKey(s.row.benchmark, s.row.item));
  if (!meta) return null;
  const context = String(meta.context_condition ?? "");
  const unknownIndex = index(meta.unknown_index);
  if ((context !== "ambig" && context !== "disambig") || unknownIndex === null) return null;
  return { context, unknownIndex, biasedIndex: index(meta.biased_index) };
}

/** The expected behaviour of an XSTest / OR-Bench item ("comply" or "refuse"), when known. */
export function expectedBehavior(items: ItemFacts | undefined, s: ScoredRow): string | null {
  const meta = items?.get(clusterKey(s.row.benchmark, s.row.item));
  const value = meta?.expected_behavior;
  return typeof value === "string" && value !== "" ? value : null;
}

/** The option index of an MC answer letter (A = 0), or null for anything else. */
export function answerIndex(answer: string | undefined): number | null {
  if (!answer) return null;
  const a = answer.trim().toUpperCase();
  return /^[A-Z]$/.test(a) ? a.charCodeAt(0) - 65 : null;
}
