/**
 * Pre-registration (ScaffoldSafety 3.9, Table 3, App. Q.4): a stamp frozen before any trial runs,
 * holding the spec, the analysis plan with its defaults filled in, and the item manifest, each
 * with its SHA-256, and one hash over the three. `analyze` compares the run with the stamp field
 * by field; every difference is a deviation with what changed and when it took effect.
 */
import type { AnalysisPlan } from "../../contracts/analysis.js";
import type { StudySpec } from "../../contracts/spec.js";
import { canonicalJson, hashValue, sha256 } from "../../core/hash.js";
import { PARALLAX_VERSION } from "../../core/version.js";
import type { ItemManifest } from "../../run/prepare/study.js";
import { normalizePlan } from "./plan.js";

export const STAMP_FILE = "preregistration.json";
export const STAMP_FORMAT = "parallax-preregistration/1";

export interface Deviation {
  /** D-001, D-002, ... in the order found. */
  id: string;
  kind: "spec" | "analysis-plan" | "manifest" | "timing" | "stamp";
  /** What changed: a field path, a benchmark's items, or the timing of the stamp. */
  element: string;
  registered: string;
  implemented: string;
  /** When the change took effect (ISO time). */
  when: string;
}

export interface PreregistrationStamp {
  format: typeof STAMP_FORMAT;
  study: string;
  createdAt: string;
  parallaxVersion: string;
  hashes: { spec: string; analysisPlan: string; manifest: string; stamp: string };
  /** The spec without its analysis block (the plan is frozen separately, defaults filled in). */
  spec: Omit<StudySpec, "analysis">;
  analysisPlan: AnalysisPlan;
  manifest: ItemManifest;
  /** Deviations known at stamping time (a forced stamp after trials finished, a re-stamp). */
  deviations: Deviation[];
}

function withoutAnalysis(spec: StudySpec): Omit<StudySpec, "analysis"> {
  const { analysis: _analysis, ...rest } = spec;
  return rest;
}

export function stampHashes(spec: StudySpec, manifest: ItemManifest) {
  const plan = normalizePlan(spec.analysis);
  const hashes = {
    spec: hashValue(withoutAnalysis(spec)),
    analysisPlan: hashValue(plan),
    manifest: hashValue(manifest),
  };
  return { plan, hashes: { ...hashes, stamp: sha256(canonicalJson(hashes)) } };
}

export function createStamp(
  spec: StudySpec,
  manifest: ItemManifest,
  createdAt: string,
  deviations: Omit<Deviation, "id">[] = [],
): PreregistrationStamp {
  const { plan, hashes } = stampHashes(spec, manifest);
  return {
    format: STAMP_FORMAT,
    study: spec.study,
    createdAt,
    parallaxVersion: PARALLAX_VERSION,
    hashes,
    spec: withoutAnalysis(spec),
    analysisPlan: plan,
    manifest,
    deviations: deviations.map((d, i) => ({ ...d, id: deviationId(i) })),
  };
}

function deviationId(i: number): string {
  return `D-${String(i + 1).padStart(3, "0")}`;
}

export function parseStamp(text: string, file: string): PreregistrationStamp {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new Error(`${file}: not valid JSON (${(error as Error).message})`);
  }
  const stamp = value as Partial<PreregistrationStamp>;
  if (stamp?.format !== STAMP_FORMAT || !stamp.hashes || !stamp.spec || !stamp.analysisPlan || !stamp.manifest) {
    throw new Error(`${file}: not a Parallax pre-registration stamp (format ${STAMP_FORMAT})`);
  }
  return stamp as PreregistrationStamp;
}

export interface RunFacts {
  spec: StudySpec;
  manifest: ItemManifest | null;
  /** The plan the analysis actually used (a --plan override differs from the spec's). */
  planUsed: AnalysisPlan;
  planOverride: boolean;
  runCreatedAt: string;
  firstFinishedAt: string | null;
  analyzedAt: string;
}

export interface PreregistrationCheck {
  status: "matches" | "deviations";
  stampHash: string;
  stampedAt: string;
  /** Hashes recomputed from the run, to set beside the stamp's. */
  runHashes: { spec: string; analysisPlan: string; manifest: string | null };
  deviations: Deviation[];
}

/**
 * A stamp's plan with the defaults of keys added since it was frozen (the integrity thresholds):
 * a default the researcher could not have declared is not a deviation; a changed value still is.
 */
function withCurrentDefaults(plan: AnalysisPlan): AnalysisPlan {
  try {
    return normalizePlan(plan);
  } catch {
    return plan;
  }
}

/** Compares a run with its stamp and lists every deviation (stamp-time ones first). */
export function checkAgainstStamp(stamp: PreregistrationStamp, run: RunFacts): PreregistrationCheck {
  const found: Omit<Deviation, "id">[] = stamp.deviations.map(({ id: _id, ...d }) => d);
  for (const change of diffValues(stamp.spec, withoutAnalysis(run.spec), "")) {
    found.push({ kind: "spec", ...change, when: run.runCreatedAt });
  }
  for (const change of diffValues(withCurrentDefaults(stamp.analysisPlan), run.planUsed, "analysis")) {
    found.push({ kind: "analysis-plan", ...change, when: run.planOverride ? run.analyzedAt : run.runCreatedAt });
  }
  if (run.manifest) {
    for (const change of manifestChanges(stamp.manifest, run.manifest)) {
      found.push({ kind: "manifest", ...change, when: run.runCreatedAt });
    }
  }
  if (run.firstFinishedAt && run.firstFinishedAt < stamp.createdAt) {
    found.push({
      kind: "timing",
      element: "pre-registration timing",
      registered: `stamp frozen at ${stamp.createdAt}`,
      implemented: `first trial finished at ${run.firstFinishedAt}, before the stamp`,
      when: run.firstFinishedAt,
    });
  }
  const deviations = found.map((d, i) => ({ ...d, id: deviationId(i) }));
  return {
    status: deviations.length === 0 ? "matches" : "deviations",
    stampHash: stamp.hashes.stamp,
    stampedAt: stamp.createdAt,
    runHashes: {
      spec: hashValue(withoutAnalysis(run.spec)),
      analysisPlan: hashValue(run.planUsed),
      manifest: run.manifest ? hashValue(run.manifest) : null,
    },
    deviations,
  };
}

type Change = Pick<Deviation, "element" | "registered" | "implemented">;

function show(value: unknown): string {
  if (value === undefined) return "(absent)";
  const text = typeof value === "string" ? value : canonicalJson(value);
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
}

/** Entries of an array of objects with ids are matched by id, so a reordering is no change. */
function keyedById(value: unknown[]): Map<string, unknown> | null {
  const ids = value.map((v) => (typeof v === "object" && v !== null ? (v as { id?: unknown }).id : undefined));
  if (!ids.every((id) => typeof id === "string") || new Set(ids).size !== ids.length) return null;
  return new Map(value.map((v, i) => [ids[i] as string, v]));
}

/** Field-by-field differences, as paths like models[sim-a].params.temperature. */
export function diffValues(registered: unknown, implemented: unknown, path: string): Change[] {
  if (canonicalJson(registered) === canonicalJson(implemented)) return [];
  const at = path || "(spec)";
  if (Array.isArray(registered) && Array.isArray(implemented)) {
    const a = keyedById(registered);
    const b = keyedById(implemented);
    if (a && b) {
      const ids = [...new Set([...a.keys(), ...b.keys()])];
      return ids.flatMap((id) => diffValues(a.get(id), b.get(id), `${path}[${id}]`));
    }
    return [{ element: at, registered: show(registered), implemented: show(implemented) }];
  }
  if (isRecord(registered) && isRecord(implemented)) {
    const keys = [...new Set([...Object.keys(registered), ...Object.keys(implemented)])].sort();
    return keys.flatMap((k) => diffValues(registered[k], implemented[k], path ? `${path}.${k}` : k));
  }
  return [{ element: at, registered: show(registered), implemented: show(implemented) }];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function manifestChanges(registered: ItemManifest, implemented: ItemManifest): Change[] {
  const changes: Change[] = [];
  const before = new Map(registered.benchmarks.map((b) => [b.id, b]));
  const after = new Map(implemented.benchmarks.map((b) => [b.id, b]));
  for (const id of new Set([...before.keys(), ...after.keys()])) {
    const a = before.get(id);
    const b = after.get(id);
    if (!a || !b) {
      changes.push({
        element: `manifest benchmark ${id}`,
        registered: a ? `${a.items.length} item(s)` : "(absent)",
        implemented: b ? `${b.items.length} item(s)` : "(absent)",
      });
      continue;
    }
    const hashesA = new Map(a.items.map((i) => [i.id, i.sha256]));
    const hashesB = new Map(b.items.map((i) => [i.id, i.sha256]));
    const removed = [...hashesA.keys()].filter((i) => !hashesB.has(i));
    const added = [...hashesB.keys()].filter((i) => !hashesA.has(i));
    const edited = [...hashesA.keys()].filter((i) => hashesB.has(i) && hashesB.get(i) !== hashesA.get(i));
    const list = (ids: string[]) =>
      ids.length > 5 ? `${ids.slice(0, 5).join(", ")} and ${ids.length - 5} more` : ids.join(", ");
    if (removed.length || added.length || edited.length) {
      const parts = [
        removed.length ? `removed ${list(removed)}` : "",
        added.length ? `added ${list(added)}` : "",
        edited.length ? `content changed: ${list(edited)}` : "",
      ].filter(Boolean);
      changes.push({
        element: `manifest benchmark ${id} items`,
        registered: `${a.items.length} item(s), hash ${hashValue(a.items).slice(0, 12)}`,
        implemented: `${b.items.length} item(s): ${parts.join("; ")}`,
      });
    }
    for (const field of ["loader", "source", "sample", "skippedRows"] as const) {
      changes.push(...diffValues(a[field], b[field], `manifest benchmark ${id}.${field}`));
    }
  }
  return [...changes, ...familyChanges(registered, implemented)];
}

/** The frozen families: a family added, removed, or with other items, models or conditions is a deviation. */
function familyChanges(registered: ItemManifest, implemented: ItemManifest): Change[] {
  const before = registered.families ?? {};
  const after = implemented.families ?? {};
  return [...new Set([...Object.keys(before), ...Object.keys(after)])].flatMap((name) => {
    const a = before[name];
    const b = after[name];
    if (!a || !b) {
      return [
        {
          element: `manifest family ${name}`,
          registered: a ? `${a.role}, ${a.benchmarks.join(", ")}` : "(absent)",
          implemented: b ? `${b.role}, ${b.benchmarks.join(", ")}` : "(absent)",
        },
      ];
    }
    const items = [...new Set([...Object.keys(a.items), ...Object.keys(b.items)])].flatMap((benchmark) => {
      const was = a.items[benchmark] ?? [];
      const now = b.items[benchmark] ?? [];
      if (canonicalJson(was) === canonicalJson(now)) return [];
      const kept = new Set(now);
      const removed = was.filter((id) => !kept.has(id)).length;
      return [
        {
          element: `manifest family ${name} items of ${benchmark}`,
          registered: `${was.length} item(s), hash ${hashValue(was).slice(0, 12)}`,
          implemented: `${now.length} item(s), ${removed} of the registered ones left out`,
        },
      ];
    });
    const rest = (["role", "models", "benchmarks", "conditions"] as const).flatMap((field) =>
      diffValues(a[field], b[field], `manifest family ${name}.${field}`),
    );
    return [...items, ...rest];
  });
}
