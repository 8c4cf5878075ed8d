/**
 * Building a scaffold's sub-call markers (`Scaffold.callMarkers`) from its own prompt constants,
 * and collecting every scaffold's markers for the simulated panel.
 */
import type { CallMarkers, SubCallKind } from "../contracts/call-markers.js";
import type { Scaffold } from "./types.js";

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** Matches `phrase` literally, in any letter case; `lineStart`: only at the start of a line. */
export function phraseMarker(phrase: string, options: { lineStart?: boolean } = {}): RegExp {
  return options.lineStart ? new RegExp(`^${escapeRegExp(phrase)}`, "im") : new RegExp(escapeRegExp(phrase), "i");
}

/** The markers of every scaffold given, by kind (several scaffolds may mark the same kind). */
export function collectCallMarkers(list: Iterable<Scaffold>): CallMarkers {
  const byKind: Partial<Record<SubCallKind, RegExp[]>> = {};
  for (const scaffold of list) {
    for (const [kind, pattern] of Object.entries(scaffold.callMarkers ?? {}) as [SubCallKind, RegExp][]) {
      const patterns = byKind[kind] ?? [];
      // Variants built from one factory (map_reduce, map_reduce_options) share their patterns.
      if (!patterns.some((p) => p.source === pattern.source && p.flags === pattern.flags)) patterns.push(pattern);
      byKind[kind] = patterns;
    }
  }
  return byKind;
}
