/**
 * Kappa per benchmark: primary vs validation judge, and the refusal patterns vs the primary judge.
 * Both raters are read on the scale of the benchmark's rubric (the behaviour, refused vs
 * complied, for the compliance rubric; the outcome, 1 vs 0, otherwise), never on a label already
 * mapped through the item's expected behaviour.
 */
import {
  type AgreementRow,
  type AgreementSkip,
  agreementByBenchmark,
  type Rating,
  type RaterRole,
  type RatingScale,
} from "../../scoring/judge/agreement.js";
import { agreementScaleOf } from "../../scoring/judge/rubrics.js";
import { classifyCompliance } from "../../scoring/refusal-pattern.js";
import type { VerdictRecord } from "../store/types.js";
import type { Judgeable } from "./judgeables.js";

export interface JudgeAgreement {
  per_benchmark: AgreementRow[];
  skipped: AgreementSkip[];
}

type Pairs = Map<string, { names: [string, string]; a: Rating[]; b: Rating[] }>;

export function agreementOf(judgeables: Judgeable[], verdicts: VerdictRecord[]): JudgeAgreement {
  const rows: AgreementRow[] = [];
  const skipped: AgreementSkip[] = [];
  const byUuid = new Map(judgeables.map((j) => [j.entry.uuid, j]));
  const scales = new Map<string, RatingScale>();
  // A verdict on the scale of its response's rubric; undefined when the judge failed or the scale excludes it.
  const rating = (v: VerdictRecord): Rating | undefined => {
    const j = byUuid.get(v.uuid);
    if (!j || !v.ok || v.label === null) return undefined;
    const scale = agreementScaleOf(j.rubric);
    scales.set(v.benchmark, scale);
    const label = scale.rate(v.label, j.item);
    return label === null ? undefined : { benchmark: v.benchmark, key: v.uuid, label };
  };
  const primaries = verdicts.filter((v) => v.role === "primary");
  const validations = verdicts.filter((v) => v.role === "validation");
  const primaryOf = new Map(primaries.map((v) => [v.uuid, v]));
  const pairs: Pairs = new Map();
  for (const v of validations) {
    const p = primaryOf.get(v.uuid);
    const [ra, rb] = [p && rating(p), rating(v)];
    if (!p || !ra || !rb) continue;
    const key = `${p.judge}\u0000${v.judge}`;
    const pair = pairs.get(key) ?? { names: [p.judge, v.judge] as [string, string], a: [], b: [] };
    pair.a.push(ra);
    pair.b.push(rb);
    pairs.set(key, pair);
  }
  // The pattern classifier on every compliance-rubric response the primary judge rated: its
  // classes carry the rubric's label names, so it is read on the same scale as the judge.
  const patternPairs: Pairs = new Map();
  for (const j of judgeables) {
    if (j.rubric.id !== "compliance") continue;
    const p = primaryOf.get(j.entry.uuid);
    const rp = p && rating(p);
    const label = agreementScaleOf(j.rubric).rate(classifyCompliance(j.raw), j.item);
    if (!p || !rp || label === null) continue;
    const pair = patternPairs.get(p.judge) ?? { names: ["refusal_pattern", p.judge] as [string, string], a: [], b: [] };
    pair.a.push({ benchmark: j.entry.benchmark, key: j.entry.uuid, label });
    pair.b.push(rp);
    patternPairs.set(p.judge, pair);
  }
  const scaleOf = (benchmark: string): RatingScale => scales.get(benchmark)!;
  const kinds = [
    ...[...pairs.values()].map((pair) => ({
      pair,
      kind: "cross_judge" as const,
      roles: ["primary_judge", "validation_judge"] as [RaterRole, RaterRole],
    })),
    ...[...patternPairs.values()].map((pair) => ({
      pair,
      kind: "scorer_vs_judge" as const,
      roles: ["scorer", "primary_judge"] as [RaterRole, RaterRole],
    })),
  ];
  for (const { pair, kind, roles } of kinds) {
    const result = agreementByBenchmark({ names: pair.names, roles }, scaleOf, pair.a, pair.b);
    rows.push(...result.rows.map((row) => ({ ...row, kind })));
    skipped.push(...result.skipped.map((skip) => ({ ...skip, kind })));
  }
  return { per_benchmark: rows, skipped };
}
