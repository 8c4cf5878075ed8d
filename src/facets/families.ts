/**
 * The spec checks of study families (`families:`) that need no data: each family names known
 * models, benchmarks, facets and facet levels, its samples name its own benchmarks and other
 * families, and at most one family is primary. Problems come back as (YAML path, message) for
 * validate.ts to locate; the checks that need the items (a disjoint sample too large for what is
 * left) run when the study is prepared (src/run/prepare/families.ts).
 */
import { facetLabel, facetName } from "../contracts/condition.js";
import {
  FAMILY_SAMPLE_KEYS,
  type FacetValue,
  type FamilySampleSpec,
  type StudyFamilySpec,
  type StudySpec,
} from "../contracts/spec.js";
import type { PathSegment } from "../core/spec-loader.js";

export interface FamilyProblem {
  path: PathSegment[];
  message: string;
  atKey?: boolean;
}

/** Whether a family's level names a value of the facet: a bare name takes every parameterisation. */
export function levelMatches(level: FacetValue, value: FacetValue): boolean {
  return typeof level === "object" && Object.keys(level).length > 1
    ? facetLabel(level) === facetLabel(value)
    : facetName(level) === facetName(value);
}

/** A family's samples by benchmark id (one sample written for all of its benchmarks applies to each). */
export function familySamples(family: StudyFamilySpec, benchmarks: readonly string[]): Map<string, FamilySampleSpec> {
  const sample = family.sample;
  if (sample === undefined) return new Map();
  if (isSingleSample(sample)) return new Map(benchmarks.map((b) => [b, sample]));
  return new Map(Object.entries(sample).filter(([b]) => benchmarks.includes(b)));
}

/** Whether a family writes one sample for all its benchmarks (rather than one per benchmark id). */
export function isSingleSample(sample: NonNullable<StudyFamilySpec["sample"]>): sample is FamilySampleSpec {
  const keys: readonly string[] = FAMILY_SAMPLE_KEYS;
  return Object.keys(sample).every((key) => keys.includes(key));
}

/** The family's benchmark ids (default: every benchmark of the study). */
export function familyBenchmarks(spec: StudySpec, family: StudyFamilySpec): string[] {
  return family.benchmarks ?? spec.benchmarks.map((b) => b.id);
}

export function familyProblems(spec: StudySpec): FamilyProblem[] {
  const families = spec.families;
  if (!families) return [];
  const names = Object.keys(families);
  const problems: FamilyProblem[] = [];
  const primaries = names.filter((name) => families[name].role === "primary");
  for (const extra of primaries.slice(1)) {
    problems.push({
      path: ["families", extra, "role"],
      message: `expected at most one family with role 'primary', found '${primaries[0]}' and '${extra}'`,
    });
  }
  for (const name of names) problems.push(...oneFamilyProblems(spec, name, families[name], names));
  return problems;
}

function oneFamilyProblems(spec: StudySpec, name: string, family: StudyFamilySpec, names: string[]): FamilyProblem[] {
  const at = (...rest: PathSegment[]): PathSegment[] => ["families", name, ...rest];
  const problems: FamilyProblem[] = [];
  const modelIds = spec.models.map((m) => m.id);
  const benchmarkIds = spec.benchmarks.map((b) => b.id);
  family.models?.forEach((id, i) => {
    if (!modelIds.includes(id)) problems.push({ path: at("models", i), message: unknown("model id", id, modelIds) });
  });
  family.benchmarks?.forEach((id, i) => {
    if (!benchmarkIds.includes(id))
      problems.push({ path: at("benchmarks", i), message: unknown("benchmark id", id, benchmarkIds) });
  });
  for (const [facet, levels] of Object.entries(family.conditions ?? {})) {
    const declared = spec.conditions.facets[facet];
    if (!declared) {
      problems.push({
        path: at("conditions", facet),
        message: unknown("facet", facet, Object.keys(spec.conditions.facets)),
        atKey: true,
      });
      continue;
    }
    levels.forEach((level, i) => {
      if (!declared.some((value) => levelMatches(level, value)))
        problems.push({
          path: at("conditions", facet, i),
          message: unknown(`level of facet '${facet}'`, facetLabel(level), declared.map(facetLabel)),
        });
    });
  }
  problems.push(...excludeProblems(spec, name, family));
  problems.push(...sampleProblems(spec, name, family, names));
  return problems;
}

/** A family's `exclude` entries name the study's facets, or `benchmark` with the family's benchmarks. */
function excludeProblems(spec: StudySpec, name: string, family: StudyFamilySpec): FamilyProblem[] {
  const own = familyBenchmarks(spec, family);
  const facets = Object.keys(spec.conditions.facets);
  return (family.exclude ?? []).flatMap((rule, i) =>
    Object.entries(rule).flatMap(([key, value]): FamilyProblem[] => {
      const path: PathSegment[] = ["families", name, "exclude", i, key];
      if (key === "benchmark") {
        const ids = (Array.isArray(value) ? value : [value]).map((v) => facetName(v));
        const unknownIds = ids.filter((id) => !own.includes(id));
        return unknownIds.map((id) => ({
          path,
          message: `expected one of the family's benchmarks (${own.join(", ")}), found '${id}'`,
        }));
      }
      return facets.includes(key)
        ? []
        : [{ path, message: unknown("facet", key, ["benchmark", ...facets]), atKey: true }];
    }),
  );
}

function sampleProblems(spec: StudySpec, name: string, family: StudyFamilySpec, names: string[]): FamilyProblem[] {
  const sample = family.sample;
  if (sample === undefined) return [];
  const own = familyBenchmarks(spec, family);
  const problems: FamilyProblem[] = [];
  const entries: [PathSegment[], FamilySampleSpec, string[]][] = isSingleSample(sample)
    ? [[["families", name, "sample"], sample, own]]
    : Object.entries(sample).map(([benchmark, s]) => [["families", name, "sample", benchmark], s, [benchmark]]);
  if (!isSingleSample(sample)) {
    for (const benchmark of Object.keys(sample)) {
      if (!own.includes(benchmark))
        problems.push({
          path: ["families", name, "sample", benchmark],
          message: `expected one of the family's benchmarks (${own.join(", ")}), found '${benchmark}'`,
          atKey: true,
        });
    }
  }
  const families = spec.families ?? {};
  for (const [path, s, benchmarks] of entries) {
    const others = [
      ...(s.within ? [["within", s.within] as const] : []),
      ...(s.disjoint_from ?? []).map((f) => ["disjoint_from", f] as const),
    ];
    others.forEach(([key, other], i) => {
      const where = key === "within" ? [...path, key] : [...path, key, i - (s.within ? 1 : 0)];
      if (other === name)
        problems.push({ path: where, message: `expected another family, found the family itself ('${name}')` });
      else if (!names.includes(other)) problems.push({ path: where, message: unknown("family", other, names) });
      else if (key === "within") {
        const missing = benchmarks.filter((b) => !familyBenchmarks(spec, families[other]).includes(b));
        if (missing.length > 0)
          problems.push({
            path: where,
            message: `family '${other}' has no sample of ${missing.join(", ")} to draw from; expected a family that includes ${missing.length > 1 ? "them" : "it"}`,
          });
      }
    });
    if (s.within && s.disjoint_from?.includes(s.within))
      problems.push({
        path: [...path, "disjoint_from"],
        message: `a sample drawn within '${s.within}' cannot be disjoint from it`,
      });
  }
  return problems;
}

function unknown(what: string, found: string, known: readonly string[]): string {
  return `unknown ${what} '${found}'; expected one of: ${known.join(", ") || "(none)"}`;
}
