/**
 * Reference computations the across-studies tests check `compare` and `profile` against, written
 * out here from their definitions rather than taken from the code under test.
 */

/** The exact two-sided McNemar p from its discordant counts: 2 P(K <= min) for K ~ Bin(b + c, 1/2), at most 1. */
export function exactMcNemar(b: number, c: number): number {
  const n = b + c;
  let choose = 1;
  let tail = 0;
  for (let k = 0; k <= Math.min(b, c); k++) {
    tail += choose;
    choose = (choose * (n - k)) / (k + 1);
  }
  return Math.min(1, (2 * tail) / 2 ** n);
}

/** Holm's step-down adjustment, written out. */
export function holm(ps: readonly number[]): number[] {
  const order = ps.map((p, i) => [p, i]).sort((x, y) => x[0] - y[0]);
  const out = new Array<number>(ps.length);
  let running = 0;
  order.forEach(([p, i], rank) => {
    running = Math.max(running, Math.min(1, (ps.length - rank) * p));
    out[i] = running;
  });
  return out;
}
