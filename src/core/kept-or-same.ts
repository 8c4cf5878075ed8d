/**
 * The values `keep` accepts, in order, as `filter` gives them, but `values` itself when it keeps
 * every one. A paper-scale table's row lists are half a million long, and a copy equal to its
 * source, held beside it for the whole analysis, costs V8 a few times its size at its peak.
 * Callers treat both as read-only.
 */
export function keptOrSame<T>(values: readonly T[], keep: (value: T) => boolean): T[] {
  let kept: T[] | null = null;
  for (let i = 0; i < values.length; i++) {
    const value = values[i];
    if (keep(value)) kept?.push(value);
    else kept ??= values.slice(0, i);
  }
  return kept ?? (values as T[]);
}
