/**
 * Where a flipped item of `compare A B` opens side by side: the viewer started on both studies
 * (`parallax view A --with B`) serves `/pair?a=TRIAL_IN_A&b=TRIAL_IN_B`, both transcripts and both
 * scores, each column labelled with its study. The viewer's route and these links share this path.
 */
import type { Comparison } from "./compare.js";

export const PAIR_PATH = "/pair";

/** The viewer path of trial `a` of study A beside trial `b` of study B. */
export function pairPath(a: string, b: string): string {
  return `${PAIR_PATH}?a=${encodeURIComponent(a)}&b=${encodeURIComponent(b)}`;
}

/** A path as one shell word: unquoted when it is plain, else in single quotes. */
export function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

/** The command that starts the viewer on both studies (A served as usual, B beside it). */
export function pairViewerCommand(a: string, b: string): string {
  return `parallax view ${shellWord(a)} --with ${shellWord(b)}`;
}

/**
 * Adds the viewer links to a comparison of two study directories or store URLs (tidy tables have no
 * store to serve): the command, and per flipped item the pair page of its first trial on each side
 * (attempt order; the item's other trials are in trialsA/trialsB).
 */
export function withViewerLinks(c: Comparison): Comparison {
  return {
    ...c,
    viewer: { command: pairViewerCommand(c.a, c.b) },
    flipped: c.flipped.map((f) =>
      f.trialsA.length && f.trialsB.length ? { ...f, view: pairPath(f.trialsA[0], f.trialsB[0]) } : f,
    ),
  };
}
