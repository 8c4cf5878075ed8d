/** A fake clock whose sleep advances time instantly and records each wait. */
export interface FakeTime {
  now: () => number;
  sleep: (ms: number) => Promise<void>;
  advance: (ms: number) => void;
  readonly slept: number[];
}

export function fakeTime(start = Date.parse("2030-01-01T00:00:00Z")): FakeTime {
  let t = start;
  const slept: number[] = [];
  return {
    now: () => t,
    sleep: async (ms: number) => {
      slept.push(ms);
      t += ms;
    },
    advance: (ms: number) => {
      t += ms;
    },
    slept,
  };
}
