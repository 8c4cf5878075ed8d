// Compares an adapter's result with a golden fixture's `expected`, leaf by leaf.
//
// Rule (golden README): |actual - expected| <= atol + rtol * |expected|.
// Tolerances are either global ({rtol, atol}) or per group. A group either lists the top-level
// expected keys it covers (`groups: [...]`, fixture 17) or is named after a key that appears in
// the leaf's path (fixture 06: `se` covers `m0.fixed_effects[3].se`); when several groups match,
// the one matching deepest in the path wins. In a fixture with only group tolerances, leaves no
// group covers are not targets (e.g. optimizer diagnostics) and are skipped, as are subtrees
// whose `note` says they are "NOT targets".
//
// Leaves: numbers within tolerance; expected null matches null, undefined or NaN (undefined by
// definition) but the key must exist; booleans and strings must be equal; arrays must have the
// expected length. A missing actual field is a mismatch.

export interface Tolerance {
  rtol: number;
  atol: number;
}

interface ToleranceGroup {
  name: string;
  /** Each selector is a run of consecutive object keys; `anchored` ones must start at the root. */
  selectors: { keys: string[]; anchored: boolean }[];
  tolerance: Tolerance;
}

export interface ToleranceSpec {
  global?: Tolerance;
  groups: ToleranceGroup[];
}

/**
 * Group names that are not literally a key in the expected tree, mapped to the key runs they
 * stand for (fixture 06 names `aic_bic`, `lrt_chi2`, `lrt_p`).
 */
const GROUP_ALIASES: Record<string, string[]> = {
  aic_bic: ["aic", "bic"],
  // The fixture's note allows either SE flavour; both get the `se` tolerance.
  se: ["se", "se_rx_conditional"],
  lrt_chi2: ["lrt_m0_vs_m1.chi2"],
  lrt_p: ["lrt_m0_vs_m1.p"],
};

export interface Mismatch {
  path: string;
  expected: unknown;
  actual: unknown;
  reason: string;
}

export interface ComparisonReport {
  mismatches: Mismatch[];
  /** Number of leaves compared. */
  compared: number;
  /** Leaves no tolerance covers (not targets), by path. */
  skipped: string[];
}

function isTolerance(value: unknown): value is Tolerance {
  const v = value as Tolerance;
  return typeof v === "object" && v !== null && typeof v.rtol === "number" && typeof v.atol === "number";
}

/** Reads a fixture's `tolerance` field into a global tolerance and named groups. */
export function parseTolerance(raw: unknown): ToleranceSpec {
  if (typeof raw !== "object" || raw === null) throw new Error("fixture has no tolerance object");
  const spec: ToleranceSpec = { groups: [] };
  if (isTolerance(raw)) spec.global = { rtol: raw.rtol, atol: raw.atol };
  for (const [name, value] of Object.entries(raw)) {
    if (!isTolerance(value)) continue;
    const listed = (value as { groups?: unknown }).groups;
    const selectors = Array.isArray(listed)
      ? listed.map((key) => ({ keys: [String(key)], anchored: true }))
      : (GROUP_ALIASES[name] ?? [name]).map((run) => ({ keys: run.split("."), anchored: false }));
    spec.groups.push({ name, selectors, tolerance: { rtol: value.rtol, atol: value.atol } });
  }
  if (!spec.global && spec.groups.length === 0) throw new Error("fixture tolerance has neither rtol/atol nor groups");
  return spec;
}

/** End position (exclusive) of the deepest occurrence of `run` in `keys`, or -1. */
function deepestMatch(keys: readonly string[], run: readonly string[], anchored: boolean): number {
  const lastStart = anchored ? 0 : keys.length - run.length;
  for (let start = lastStart; start >= 0; start--) {
    if (run.every((key, i) => keys[start + i] === key)) return start + run.length;
  }
  return -1;
}

/** Tolerance for a leaf given the object keys on its path (array indices left out). */
export function toleranceFor(spec: ToleranceSpec, keys: readonly string[]): Tolerance | undefined {
  let best: Tolerance | undefined;
  let bestDepth = -1;
  let bestLength = 0;
  for (const group of spec.groups) {
    for (const selector of group.selectors) {
      const depth = deepestMatch(keys, selector.keys, selector.anchored);
      // Deepest match wins; on a tie the longer (more specific) selector does.
      const better = depth > bestDepth || (depth === bestDepth && depth >= 0 && selector.keys.length > bestLength);
      if (better) {
        bestDepth = depth;
        bestLength = selector.keys.length;
        best = group.tolerance;
      }
    }
  }
  return best ?? spec.global;
}

export function withinTolerance(actual: number, expected: number, tolerance: Tolerance): boolean {
  if (Number.isNaN(actual)) return false;
  if (actual === expected) return true; // also equal infinities
  return Math.abs(actual - expected) <= tolerance.atol + tolerance.rtol * Math.abs(expected);
}

function isArrayLike(value: unknown): value is ArrayLike<unknown> {
  return Array.isArray(value) || ArrayBuffer.isView(value);
}

function isNotTargetSubtree(expected: Record<string, unknown>): boolean {
  return typeof expected.note === "string" && /^NOT targets/i.test(expected.note);
}

/** Compares every leaf of `expected` with `actual` at the same path. */
export function compareToExpected(expected: unknown, actual: unknown, spec: ToleranceSpec): ComparisonReport {
  const report: ComparisonReport = { mismatches: [], compared: 0, skipped: [] };
  walk(expected, actual, "", [], spec, report);
  return report;
}

function walk(
  expected: unknown,
  actual: unknown,
  path: string,
  keys: string[],
  spec: ToleranceSpec,
  report: ComparisonReport,
): void {
  if (Array.isArray(expected)) {
    walkArray(expected, actual, path, keys, spec, report);
  } else if (expected !== null && typeof expected === "object") {
    walkObject(expected as Record<string, unknown>, actual, path, keys, spec, report);
  } else {
    compareLeaf(expected, actual, path, keys, spec, report);
  }
}

function walkArray(
  expected: unknown[],
  actual: unknown,
  path: string,
  keys: string[],
  spec: ToleranceSpec,
  report: ComparisonReport,
): void {
  if (!isArrayLike(actual)) {
    report.mismatches.push({ path, expected: `array[${expected.length}]`, actual, reason: "not an array" });
    return;
  }
  if (actual.length !== expected.length) {
    report.mismatches.push({ path, expected: expected.length, actual: actual.length, reason: "array length differs" });
    return;
  }
  expected.forEach((item, i) => {
    walk(item, actual[i], `${path}[${i}]`, keys, spec, report);
  });
}

function walkObject(
  expected: Record<string, unknown>,
  actual: unknown,
  path: string,
  keys: string[],
  spec: ToleranceSpec,
  report: ComparisonReport,
): void {
  if (isNotTargetSubtree(expected)) {
    report.skipped.push(path);
    return;
  }
  if (actual === null || typeof actual !== "object" || isArrayLike(actual)) {
    report.mismatches.push({ path, expected: "object", actual, reason: "not an object" });
    return;
  }
  const actualObject = actual as Record<string, unknown>;
  for (const [key, value] of Object.entries(expected)) {
    const childPath = path === "" ? key : `${path}.${key}`;
    const childKeys = [...keys, key];
    if (!(key in actualObject)) {
      if (coversAnyLeaf(value, childKeys, spec)) {
        report.mismatches.push({ path: childPath, expected: value, actual: undefined, reason: "missing field" });
      } else {
        report.skipped.push(childPath);
      }
      continue;
    }
    walk(value, actualObject[key], childPath, childKeys, spec, report);
  }
}

/** Whether any leaf under `expected` is a comparison target. */
function coversAnyLeaf(expected: unknown, keys: string[], spec: ToleranceSpec): boolean {
  if (Array.isArray(expected)) return expected.some((item) => coversAnyLeaf(item, keys, spec));
  if (expected !== null && typeof expected === "object") {
    const record = expected as Record<string, unknown>;
    if (isNotTargetSubtree(record)) return false;
    return Object.entries(record).some(([key, value]) => coversAnyLeaf(value, [...keys, key], spec));
  }
  return toleranceFor(spec, keys) !== undefined;
}

function compareLeaf(
  expected: unknown,
  actual: unknown,
  path: string,
  keys: string[],
  spec: ToleranceSpec,
  report: ComparisonReport,
): void {
  const tolerance = toleranceFor(spec, keys);
  if (!tolerance) {
    report.skipped.push(path);
    return;
  }
  report.compared++;
  const mismatch = (reason: string) => report.mismatches.push({ path, expected, actual, reason });
  if (expected === null) {
    const undefinedByDefinition = actual === null || actual === undefined || Number.isNaN(actual);
    if (!undefinedByDefinition) mismatch("expected undefined (null)");
  } else if (typeof expected === "number") {
    if (typeof actual !== "number") mismatch("not a number");
    else if (!withinTolerance(actual, expected, tolerance))
      mismatch(`outside rtol ${tolerance.rtol}, atol ${tolerance.atol}`);
  } else if (actual !== expected) {
    mismatch("not equal");
  }
}

/** One line per mismatch: fixture, field path, expected, actual, reason. */
export function formatMismatches(fixture: string, mismatches: readonly Mismatch[]): string {
  return mismatches
    .map(
      (m) =>
        `${fixture}: ${m.path}: expected ${JSON.stringify(m.expected)}, actual ${formatActual(m.actual)} (${m.reason})`,
    )
    .join("\n");
}

function formatActual(value: unknown): string {
  if (value === undefined) return "undefined";
  if (typeof value === "number") return String(value);
  const text = JSON.stringify(value);
  return text === undefined ? String(value) : text.length > 200 ? `${text.slice(0, 200)}...` : text;
}
