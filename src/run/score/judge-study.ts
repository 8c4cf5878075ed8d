/**
 * LLM-as-judge under the blinding protocol (ScaffoldSafety App. Q.2): sanitise, UUIDs, seal the
 * mapping (SHA-256) before the first judge call, judge by UUID, validation judge on a
 * subsample, Cohen's kappa per benchmark, the judge-guessing check. Verdicts stay keyed by UUID
 * (and are hashed) until unblinding. Everything is recorded in the store (judgements.ts).
 */
import pLimit from "p-limit";
import type { ModelSpec } from "../../contracts/spec.js";
import { InputError } from "../../core/errors.js";
import type { ProviderEnv } from "../../models/types.js";
import { openSealedMapping, sealMapping } from "../../scoring/blinding/seal.js";
import { assignJudges, buildJudge, type JudgeRuntime } from "./judges.js";
import type { VerdictRecord } from "../store/types.js";
import { type CellParseSummary, CellTally } from "./cells.js";
import type { ScoringContext } from "./context.js";
import { guessingRound, judgedSubsample } from "./guessing-round.js";
import { agreementOf, type JudgeAgreement } from "./judge-agreement.js";
import { type Judgeable, collectJudgeables } from "./judgeables.js";
import { judgeOne } from "./judge-verdict.js";
import {
  BLINDING_FILES,
  type BlindingSummary,
  blindingSummaryOf,
  JudgementLog,
  verdictsSha256,
  verdictsText,
} from "./judgements.js";
import { checkTaskDrift, type TaskChoice } from "./stored-tasks.js";

/** Version of the judge scoring protocol (rubrics, prompt, verdict schema). */
export const JUDGE_VERSION = "1.0.0";

export interface JudgeStudyOptions extends TaskChoice {
  env: ProviderEnv;
  /** Builds a judge from its spec (tests inject fakes); default: the provider registry. */
  judgeFor?: (spec: ModelSpec) => JudgeRuntime;
  concurrency?: number;
  onProgress?: (done: number, total: number) => void;
}

export interface JudgeStudyResult {
  responses: number;
  verdicts: number;
  judgeParseFailures: number;
  agreement: JudgeAgreement;
  blinding: BlindingSummary;
  cells: CellParseSummary[];
}

export async function judgeStudy(context: ScoringContext, options: JudgeStudyOptions): Promise<JudgeStudyResult> {
  const { study, store, run } = context;
  const spec = study.spec;
  const assignments = assignJudges(spec);
  if (assignments.size === 0) throw new InputError("no judges: add scoring.judges to the spec");
  await checkTaskDrift(context, options);
  const judgeables = await collectJudgeables(context, options);
  if (judgeables.length === 0) throw new InputError("no finished open-ended trials to judge");
  const log = new JudgementLog(store, run.id, context.dir);

  // Steps 1-2: sanitised responses by UUID; the mapping is sealed before any judge call.
  const sealed = sealMapping(judgeables.map((j) => j.entry));
  const sealedAt = new Date().toISOString();
  await store.sealBlindingRound(run.id, {
    mapping: sealed.text,
    sealedSha256: sealed.sha256,
    sealedAt,
    entries: judgeables.length,
  });
  log.file(BLINDING_FILES.mapping, sealed.text);
  log.file(BLINDING_FILES.seal, { sha256: sealed.sha256, sealed_at: sealedAt, entries: judgeables.length });
  await log.event({ event: "sealed", at: sealedAt, sha256: sealed.sha256, entries: judgeables.length });

  const runtimes = new Map<string, JudgeRuntime>();
  const runtime = (s: ModelSpec): JudgeRuntime => runtimes.get(s.id)!;
  try {
    // Step 3: blinded assessment, plus the validation judge on a stratified subsample.
    const fraction = spec.scoring?.validation?.fraction ?? 0.1;
    const validated = new Set(judgedSubsample(judgeables, (j) => j.entry.benchmark, fraction, spec.scoring?.seed ?? 0));
    const tasks = judgeables.flatMap((j) => {
      const assignment = assignments.get(j.entry.model)!;
      const out: { judgeable: Judgeable; judge: ModelSpec; role: VerdictRecord["role"] }[] = [
        { judgeable: j, judge: assignment.primary, role: "primary" },
      ];
      if (assignment.validation && validated.has(j))
        out.push({ judgeable: j, judge: assignment.validation, role: "validation" });
      return out;
    });
    // The judges are built before any call: building one imports its provider's SDK.
    const judges = [...tasks.map((t) => t.judge), ...[...assignments.values()].map((a) => a.primary)];
    for (const judge of judges) {
      if (runtimes.has(judge.id)) continue;
      runtimes.set(
        judge.id,
        options.judgeFor
          ? options.judgeFor(judge)
          : await buildJudge(judge, spec, options.env, { cache: store, specDir: run.specDir }),
      );
    }
    log.startCalls();
    let done = 0;
    const limit = pLimit(Math.max(1, options.concurrency ?? spec.execution.concurrency));
    const verdicts = await limit.map(tasks, async (t) => {
      const verdict = await judgeOne(log, runtime(t.judge), t.judgeable, t.role);
      options.onProgress?.(++done, tasks.length);
      return verdict;
    });
    await store.saveVerdicts(run.id, verdicts);
    log.file(BLINDING_FILES.verdicts, verdictsText(verdicts));
    const verdictsSha = verdictsSha256(verdicts);
    await log.event({ event: "judged", at: new Date().toISOString(), verdicts: verdicts.length, sha256: verdictsSha });

    const agreement = agreementOf(judgeables, verdicts);
    log.file(BLINDING_FILES.agreement, agreement);

    // Step 4: the guessing check, after verdicts are locked; reads the mapping through its seal.
    const round = await store.getBlindingRound(run.id);
    const mapping = openSealedMapping(round?.mapping ?? "", sealed.sha256);
    const outcomes = new Map(
      verdicts.filter((v) => v.role === "primary").map((v) => [v.uuid, v.ok ? v.outcome : null] as const),
    );
    const guessing = await guessingRound(log, judgeables, { mapping, assignments, runtime, spec, outcomes });
    const primaries = [...new Set([...assignments.values()].map((a) => a.primary.id))].sort();
    const judged = {
      judge: primaries.join(","),
      verdictsSha256: verdictsSha,
      responses: judgeables.length,
      guessingCheck: guessing,
      agreement,
    };
    await store.finishBlindingRound(run.id, judged);
    const blinding = blindingSummaryOf({ ...round!, judged })!;
    log.file(BLINDING_FILES.summary, blinding);
    return {
      responses: judgeables.length,
      verdicts: verdicts.length,
      judgeParseFailures: verdicts.filter((v) => !v.ok).length,
      agreement,
      blinding,
      cells: judgeCells(judgeables, verdicts),
    };
  } finally {
    await Promise.all([...runtimes.values()].map((r) => r.close()));
  }
}

function judgeCells(judgeables: Judgeable[], verdicts: VerdictRecord[]): CellParseSummary[] {
  const byUuid = new Map(judgeables.map((j) => [j.entry.uuid, j.entry]));
  const tally = new CellTally();
  for (const v of verdicts) {
    const e = byUuid.get(v.uuid)!;
    tally.addCell(
      { model: e.model, condition: e.configuration, benchmark: e.benchmark, scorer: `judge:${v.judge}` },
      !v.ok,
    );
  }
  return tally.unsorted();
}
