/** Kappa per benchmark: primary vs validation judge, and the refusal patterns vs the primary judge. */
import {
  type AgreementRow,
  type AgreementSkip,
  agreementByBenchmark,
  type Rating,
} from "../../scoring/judge/agreement.js";
import { classifyCompliance, complianceOutcome } from "../../scoring/refusal-pattern.js";
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
  const rating = (v: VerdictRecord): Rating | undefined =>
    v.ok && v.outcome !== null ? { benchmark: v.benchmark, key: v.uuid, outcome: v.outcome } : undefined;
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
  // The pattern classifier on every compliance-rubric response the primary judge rated.
  const patternPairs: Pairs = new Map();
  for (const j of judgeables) {
    if (j.rubric.id !== "compliance") continue;
    const p = primaryOf.get(j.entry.uuid);
    const rp = p && rating(p);
    const outcome = complianceOutcome(classifyCompliance(j.raw), j.item.metadata.expected_behavior);
    if (!p || !rp || outcome === null) continue;
    const pair = patternPairs.get(p.judge) ?? { names: ["refusal_pattern", p.judge] as [string, string], a: [], b: [] };
    pair.a.push({ benchmark: j.entry.benchmark, key: j.entry.uuid, outcome });
    pair.b.push(rp);
    patternPairs.set(p.judge, pair);
  }
  const kinds = [
    ...[...pairs.values()].map((pair) => ({ pair, kind: "cross_judge" as const })),
    ...[...patternPairs.values()].map((pair) => ({ pair, kind: "scorer_vs_judge" as const })),
  ];
  for (const { pair, kind } of kinds) {
    const result = agreementByBenchmark(pair.names, pair.a, pair.b);
    rows.push(...result.rows.map((row) => ({ ...row, kind })));
    skipped.push(...result.skipped);
  }
  return { per_benchmark: rows, skipped };
}
