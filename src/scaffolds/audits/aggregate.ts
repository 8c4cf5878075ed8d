/** Aggregates of per-call check values over a trial's calls (values that do not apply are skipped). */

/** Mean of the values that apply (null when none does). */
export function meanOf(values: readonly (number | null | undefined)[]): number | null {
  const present = values.filter((v): v is number => typeof v === "number");
  return present.length === 0 ? null : present.reduce((a, b) => a + b, 0) / present.length;
}

/** Share of true among the flags that apply (null when none does). */
export function flagShare(values: readonly (boolean | null | undefined)[]): number | null {
  return meanOf(values.map((v) => (v === null || v === undefined ? null : v ? 1 : 0)));
}
