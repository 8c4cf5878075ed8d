/**
 * Text as the matching checks compare it: each whitespace run as one space, trimmed, lower case,
 * so re-wrapping and capitals are not a difference.
 */

// Only the runs that are not already a single space: the same result as replacing every run, but
// a text needing few changes is copied once, not rebuilt from a piece per word. It runs on every
// prompt a run sends (the propagation audit) and on every item of an exemplar pool.
const UNFOLDED_SPACE = /\s{2,}|[^\S ]/g;

export function foldedText(text: string): string {
  return text.replace(UNFOLDED_SPACE, " ").trim().toLowerCase();
}
