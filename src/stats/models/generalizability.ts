// Generalizability theory (Cronbach et al. 1972; Brennan 2001) for a fully crossed design with one
// object of measurement p (e.g. models) and one or two random facets (e.g. configurations,
// benchmarks), from cell means (one value per cell: rows of a cell are averaged first).
// Variance components come from the random-effects expected-mean-square equations; negative
// estimates are reported raw and truncated at zero for the coefficients (Brennan's convention).
// A facet listed in `fixedFacets` is averaged over first (Shavelson & Webb's treatment of a fixed
// facet), so the analysis is of the object x remaining-random-facets design.
import { type Column, columnValues, labelCodes, rowKeys } from "./design.js";
import { seededRandom } from "../random.js";

export interface GStudySpec {
  object: string;
  /** One or two random facets (after removing fixed ones). */
  facets: readonly string[];
  value: string;
  /** Facets to average over (fixed facets). */
  fixedFacets?: readonly string[];
  /** D-study facet sizes n' (default: the observed sizes), in `facets` order. */
  dStudySizes?: readonly number[];
  /**
   * Facets of `facets` that are fixed in the universe of generalization (Brennan 2001, ch. 4):
   * the components are still estimated as random (the G-study), but in the D-study a p x facet
   * component whose facets are all fixed joins the universe-score variance instead of the error,
   * and facet components with only fixed facets are not error. Default: none (all random).
   */
  fixedInUniverse?: readonly string[];
  bootstrap?: { resamples: number; seed: number; level?: number };
}

export interface VarianceComponent {
  /** 'p', a facet name, or interactions like 'p:config'. */
  source: string;
  meanSquare: number;
  df: number;
  /** EMS estimate (may be negative). */
  estimate: number;
  /** max(estimate, 0), used by the coefficients. */
  truncated: number;
}

export interface DStudy {
  sizes: number[];
  /** Facets treated as fixed (their p x facet variance is universe score). */
  fixed: string[];
  /** s2_p plus the p x (fixed facets only) components over their sizes. */
  universeScoreVariance: number;
  /** Relative (norm-referenced) generalizability coefficient E rho^2 = s2_p / (s2_p + delta). */
  generalizability: number;
  /** Absolute dependability coefficient Phi = s2_p / (s2_p + Delta). */
  dependability: number;
  relativeErrorVariance: number;
  absoluteErrorVariance: number;
}

export interface GStudyResult {
  nObjects: number;
  facetSizes: number[];
  components: VarianceComponent[];
  /** Coefficients at the observed facet sizes. */
  observed: DStudy;
  /** Coefficients at `dStudySizes` (equal to `observed` when not given). */
  projected: DStudy;
  bootstrap?: { level: number; ci: [number, number]; resamples: number; undefinedResamples: number };
}

/** Cell means as a dense array over (object, facet 1[, facet 2]), facet index fastest. */
interface Cube {
  objects: string[];
  sizes: number[];
  values: Float64Array;
}

export function generalizabilityStudy(table: Readonly<Record<string, Column>>, spec: GStudySpec): GStudyResult {
  if (spec.facets.length < 1 || spec.facets.length > 2) throw new Error("G-study supports one or two random facets");
  const cube = cellMeans(table, spec);
  const observedSizes = cube.sizes;
  const dSizes = spec.dStudySizes ? [...spec.dStudySizes] : observedSizes;
  if (dSizes.length !== observedSizes.length) throw new Error("dStudySizes needs one size per random facet");
  const components = varianceComponents(cube, spec.facets);
  const fixed = spec.fixedInUniverse ?? [];
  const result: GStudyResult = {
    nObjects: cube.objects.length,
    facetSizes: observedSizes,
    components,
    observed: dStudy(components, observedSizes, fixed),
    projected: dStudy(components, dSizes, fixed),
  };
  if (spec.bootstrap)
    result.bootstrap = bootstrapObjects(cube, { facets: spec.facets, sizes: dSizes, fixed }, spec.bootstrap);
  return result;
}

function cellMeans(table: Readonly<Record<string, Column>>, spec: GStudySpec): Cube {
  const column = (name: string) => {
    const c = table[name];
    if (!c) throw new Error(`unknown column '${name}'`);
    return c;
  };
  // Each column as codes of its labels (no value expanded per row); the object and facet levels
  // in sorted order, each code's place among them.
  const objectColumn = levelPlaces(labelCodes(column(spec.object)));
  const facetColumns = spec.facets.map((name) => levelPlaces(labelCodes(column(name))));
  const fixedColumns = (spec.fixedFacets ?? []).map((name) => labelCodes(column(name)));
  const values = columnValues(column(spec.value));
  const objects = objectColumn.levels;
  const sizes = facetColumns.map((c) => c.levels.length);
  // A full cell: its object, facet and fixed-facet levels.
  const fullCellOf = rowKeys([objectColumn, ...facetColumns, ...fixedColumns]);
  // First the mean of every full cell (fixed-facet levels included), so each fixed level weighs
  // equally however many rows it has; then the average over fixed levels within a cube cell.
  const full = new Map<number | string, { cell: number; sum: number; count: number }>();
  for (let r = 0; r < values.length; r++) {
    let cell = objectColumn.place[objectColumn.codes[r]];
    facetColumns.forEach((c, f) => {
      cell = cell * sizes[f] + c.place[c.codes[r]];
    });
    const key = fullCellOf(r);
    let entry = full.get(key);
    if (!entry) {
      entry = { cell, sum: 0, count: 0 };
      full.set(key, entry);
    }
    entry.sum += Number(values[r]);
    entry.count++;
  }
  const cells = objects.length * sizes.reduce((a, b) => a * b, 1);
  const sum = new Float64Array(cells);
  const count = new Float64Array(cells);
  for (const entry of full.values()) {
    sum[entry.cell] += entry.sum / entry.count;
    count[entry.cell]++;
  }
  if (count.some((c) => c === 0))
    throw new Error("the design is not fully crossed: some object x facet cells are empty");
  return { objects, sizes, values: sum.map((s, i) => s / count[i]) };
}

/** A column's distinct labels in sorted order, and each label code's place among them. */
function levelPlaces(column: ReturnType<typeof labelCodes>) {
  const levels = [...column.labels].sort();
  const rank = new Map(levels.map((level, i) => [level, i]));
  return { ...column, levels, place: Int32Array.from(column.labels, (label) => rank.get(label)!) };
}

function varianceComponents(cube: Cube, facets: readonly string[]): VarianceComponent[] {
  return cube.sizes.length === 1 ? oneFacet(cube, facets[0]) : twoFacets(cube, facets[0], facets[1]);
}

function component(source: string, meanSquare: number, df: number, estimate: number): VarianceComponent {
  return { source, meanSquare, df, estimate, truncated: Math.max(estimate, 0) };
}

/** p x i: s2_pi,e = MS_pi; s2_p = (MS_p - MS_pi)/n_i; s2_i = (MS_i - MS_pi)/n_p. */
function oneFacet(cube: Cube, facet: string): VarianceComponent[] {
  const np = cube.objects.length;
  const ni = cube.sizes[0];
  const y = (p: number, i: number) => cube.values[p * ni + i];
  const meanP = new Float64Array(np);
  const meanI = new Float64Array(ni);
  let grand = 0;
  for (let p = 0; p < np; p++) {
    for (let i = 0; i < ni; i++) {
      meanP[p] += y(p, i) / ni;
      meanI[i] += y(p, i) / np;
      grand += y(p, i) / (np * ni);
    }
  }
  let ssP = 0;
  let ssI = 0;
  let ssPI = 0;
  for (let p = 0; p < np; p++) ssP += ni * (meanP[p] - grand) ** 2;
  for (let i = 0; i < ni; i++) ssI += np * (meanI[i] - grand) ** 2;
  for (let p = 0; p < np; p++) for (let i = 0; i < ni; i++) ssPI += (y(p, i) - meanP[p] - meanI[i] + grand) ** 2;
  const dfP = np - 1;
  const dfI = ni - 1;
  const dfPI = dfP * dfI;
  const msP = ssP / dfP;
  const msI = ssI / dfI;
  const msPI = ssPI / dfPI;
  return [
    component("p", msP, dfP, (msP - msPI) / ni),
    component(facet, msI, dfI, (msI - msPI) / np),
    component(`p:${facet}`, msPI, dfPI, msPI),
  ];
}

/** p x i x j with one value per cell (Brennan 2001, Table 3.2 EMS equations). */
function twoFacets(cube: Cube, facetI: string, facetJ: string): VarianceComponent[] {
  const np = cube.objects.length;
  const [ni, nj] = cube.sizes;
  const y = (p: number, i: number, j: number) => cube.values[(p * ni + i) * nj + j];
  const mP = new Float64Array(np);
  const mI = new Float64Array(ni);
  const mJ = new Float64Array(nj);
  const mPI = new Float64Array(np * ni);
  const mPJ = new Float64Array(np * nj);
  const mIJ = new Float64Array(ni * nj);
  let grand = 0;
  for (let p = 0; p < np; p++) {
    for (let i = 0; i < ni; i++) {
      for (let j = 0; j < nj; j++) {
        const v = y(p, i, j);
        mP[p] += v / (ni * nj);
        mI[i] += v / (np * nj);
        mJ[j] += v / (np * ni);
        mPI[p * ni + i] += v / nj;
        mPJ[p * nj + j] += v / ni;
        mIJ[i * nj + j] += v / np;
        grand += v / (np * ni * nj);
      }
    }
  }
  const ss = { p: 0, i: 0, j: 0, pi: 0, pj: 0, ij: 0, pij: 0 };
  for (let p = 0; p < np; p++) ss.p += ni * nj * (mP[p] - grand) ** 2;
  for (let i = 0; i < ni; i++) ss.i += np * nj * (mI[i] - grand) ** 2;
  for (let j = 0; j < nj; j++) ss.j += np * ni * (mJ[j] - grand) ** 2;
  for (let p = 0; p < np; p++) {
    for (let i = 0; i < ni; i++) ss.pi += nj * (mPI[p * ni + i] - mP[p] - mI[i] + grand) ** 2;
    for (let j = 0; j < nj; j++) ss.pj += ni * (mPJ[p * nj + j] - mP[p] - mJ[j] + grand) ** 2;
  }
  for (let i = 0; i < ni; i++)
    for (let j = 0; j < nj; j++) ss.ij += np * (mIJ[i * nj + j] - mI[i] - mJ[j] + grand) ** 2;
  for (let p = 0; p < np; p++) {
    for (let i = 0; i < ni; i++) {
      for (let j = 0; j < nj; j++) {
        const r = y(p, i, j) - mPI[p * ni + i] - mPJ[p * nj + j] - mIJ[i * nj + j] + mP[p] + mI[i] + mJ[j] - grand;
        ss.pij += r * r;
      }
    }
  }
  const df = { p: np - 1, i: ni - 1, j: nj - 1, pi: 0, pj: 0, ij: 0, pij: 0 };
  df.pi = df.p * df.i;
  df.pj = df.p * df.j;
  df.ij = df.i * df.j;
  df.pij = df.p * df.i * df.j;
  const ms = {
    p: ss.p / df.p,
    i: ss.i / df.i,
    j: ss.j / df.j,
    pi: ss.pi / df.pi,
    pj: ss.pj / df.pj,
    ij: ss.ij / df.ij,
    pij: ss.pij / df.pij,
  };
  return [
    component("p", ms.p, df.p, (ms.p - ms.pi - ms.pj + ms.pij) / (ni * nj)),
    component(facetI, ms.i, df.i, (ms.i - ms.pi - ms.ij + ms.pij) / (np * nj)),
    component(facetJ, ms.j, df.j, (ms.j - ms.pj - ms.ij + ms.pij) / (np * ni)),
    component(`p:${facetI}`, ms.pi, df.pi, (ms.pi - ms.pij) / nj),
    component(`p:${facetJ}`, ms.pj, df.pj, (ms.pj - ms.pij) / ni),
    component(`${facetI}:${facetJ}`, ms.ij, df.ij, (ms.ij - ms.pij) / np),
    component(`p:${facetI}:${facetJ}`, ms.pij, df.pij, ms.pij),
  ];
}

/**
 * D-study coefficients for facet sizes n' (Brennan 2001, 4.4-4.5), from the truncated G-study
 * components. Each component other than s2_p is divided by the n' of its facets. A p x facet
 * component goes to the relative error delta when any of its facets is random, to the
 * universe-score variance tau when all of them are fixed; the absolute error Delta adds the
 * facet components (main effects, facet x facet) that involve a random facet. With every facet
 * random this is the usual E rho^2 = s2_p / (s2_p + delta); with every facet fixed delta = 0.
 */
export function dStudy(
  components: readonly VarianceComponent[],
  sizes: readonly number[],
  fixed: readonly string[] = [],
): DStudy {
  const s = new Map(components.map((c) => [c.source, c.truncated]));
  const facets = components.filter((c) => c.source !== "p" && !c.source.includes(":")).map((c) => c.source);
  const sizeOf = new Map(facets.map((f, i) => [f, sizes[i]]));
  let universe = s.get("p")!;
  let relative = 0;
  let facetError = 0;
  for (const c of components) {
    if (c.source === "p") continue;
    const parts = c.source.split(":");
    const facetParts = parts.filter((f) => f !== "p");
    const divisor = facetParts.reduce((d, f) => d * sizeOf.get(f)!, 1);
    const allFixed = facetParts.every((f) => fixed.includes(f));
    if (parts[0] === "p") {
      if (allFixed) universe += c.truncated / divisor;
      else relative += c.truncated / divisor;
    } else if (!allFixed) facetError += c.truncated / divisor;
  }
  const absolute = relative + facetError;
  return {
    sizes: [...sizes],
    fixed: facets.filter((f) => fixed.includes(f)),
    universeScoreVariance: universe,
    generalizability: universe / (universe + relative),
    dependability: universe / (universe + absolute),
    relativeErrorVariance: relative,
    absoluteErrorVariance: absolute,
  };
}

/** Percentile bootstrap of E rho^2 over objects of measurement (resampled with replacement). */
function bootstrapObjects(
  cube: Cube,
  /** The facets, their decision-study sizes, and those held fixed. */
  design: { facets: readonly string[]; sizes: readonly number[]; fixed: readonly string[] },
  options: { resamples: number; seed: number; level?: number },
) {
  const { facets, sizes, fixed } = design;
  const level = options.level ?? 0.95;
  const random = seededRandom(options.seed);
  const np = cube.objects.length;
  const perObject = cube.values.length / np;
  const values: number[] = [];
  let undefinedResamples = 0;
  for (let b = 0; b < options.resamples; b++) {
    const resampled = new Float64Array(cube.values.length);
    for (let p = 0; p < np; p++) {
      const source = random.int(np);
      resampled.set(cube.values.subarray(source * perObject, (source + 1) * perObject), p * perObject);
    }
    const g = dStudy(varianceComponents({ ...cube, values: resampled }, facets), sizes, fixed).generalizability;
    // 0/0 when every component is zero (e.g. one object drawn np times): no coefficient exists.
    if (Number.isNaN(g)) undefinedResamples++;
    else values.push(g);
  }
  values.sort((a, b) => a - b);
  const ci: [number, number] = [percentile(values, (1 - level) / 2), percentile(values, 1 - (1 - level) / 2)];
  return { level, ci, resamples: options.resamples, undefinedResamples };
}

/** Linear-interpolation percentile of sorted values (numpy default, R type 7). */
export function percentile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const h = (sorted.length - 1) * q;
  const lo = Math.floor(h);
  const hi = Math.min(lo + 1, sorted.length - 1);
  return sorted[lo] + (h - lo) * (sorted[hi] - sorted[lo]);
}
