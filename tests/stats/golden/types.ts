/** A fixture file from the golden directory, as the golden runner hands it to an adapter. */
export interface GoldenFixture {
  file: string;
  /** Directory of the fixture (CSV inputs named in `input` are relative to it). */
  dir: string;
  description: string;
  procedure: string;
  // biome-ignore lint/suspicious/noExplicitAny: fixture JSON is untyped; adapters read it
  input: any;
  // biome-ignore lint/suspicious/noExplicitAny: fixture JSON is untyped
  expected: any;
  // biome-ignore lint/suspicious/noExplicitAny: fixture JSON is untyped
  tolerance: any;
  reference: unknown;
}

/**
 * Computes a fixture's procedure from its `input` only, returning a value shaped like its
 * `expected` (same keys), which the runner compares under the fixture's tolerance.
 * An adapter must never read `fixture.expected`.
 */
export type GoldenAdapter = (fixture: GoldenFixture) => unknown;
