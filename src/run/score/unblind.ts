/**
 * The explicit unblinding step (`parallax score DIR --unblind`): verifies the stored mapping
 * against its seal and the stored verdicts against their recorded hash (any edit is detected
 * and refused, and the refusal logged), links UUIDs to trials, stores one score per verdict
 * (scorer "judge:<id>"), and logs the step.
 */
import type { ScoreRecord } from "../../contracts/trial.js";
import { InputError } from "../../core/errors.js";
import { type BlindingEntry, openSealedMapping } from "../../scoring/blinding/seal.js";
import type { ScoringContext } from "./context.js";
import { JUDGE_VERSION } from "./judge-study.js";
import { BLINDING_FILES, blindingSummaryOf, JudgementLog, readJudgements, verdictsSha256 } from "./judgements.js";

export interface UnblindResult {
  scores: number;
  unblindedAt: string;
}

export async function unblindStudy(context: ScoringContext): Promise<UnblindResult> {
  const { dir, store, run } = context;
  const judgements = await readJudgements(store, run.id);
  if (!judgements?.round.judged) {
    throw new InputError(
      `run '${run.id}' has no finished judge round: run 'parallax score ${dir} --scorer judge' first`,
    );
  }
  const { round, verdicts } = judgements;
  const judged = judgements.round.judged;
  if (round.unblindedAt) throw new InputError(`already unblinded at ${round.unblindedAt}`);
  const log = new JudgementLog(store, run.id, dir);
  const refuse = async (reason: string, message: string): Promise<never> => {
    await log.event({ event: "unblind_refused", at: new Date().toISOString(), reason });
    throw new InputError(message);
  };
  let mapping: BlindingEntry[] = [];
  try {
    mapping = openSealedMapping(round.mapping, round.sealedSha256);
  } catch (error) {
    await refuse((error as Error).message, (error as Error).message);
  }
  const plain = verdicts.map(({ trialId: _linked, ...verdict }) => verdict);
  if (verdictsSha256(plain) !== judged.verdictsSha256) {
    await refuse(
      "verdicts modified",
      "the stored judge verdicts do not match their recorded hash: the verdicts were modified after judging",
    );
  }
  const trialOf = new Map(mapping.map((e) => [e.uuid, e.trialId]));
  const createdAt = new Date().toISOString();
  const records: ScoreRecord[] = plain.map((v) => ({
    trialId: trialOf.get(v.uuid)!,
    scorer: `judge:${v.judge}`,
    version: JUDGE_VERSION,
    parsedAnswer: v.label,
    // A judge's malformed verdict is the judge's parse failure: recorded, with no score.
    parseStatus: v.ok ? "ok" : "failed",
    score: v.ok ? v.outcome : null,
    details: {
      uuid: v.uuid,
      rubric: v.rubric,
      role: v.role,
      confidence: v.confidence,
      justification: v.justification,
      judge_error: v.error,
    },
    createdAt,
  }));
  await store.saveScores(records);
  await store.unblindRound(run.id, createdAt, trialOf);
  log.file(BLINDING_FILES.summary, blindingSummaryOf({ ...round, unblindedAt: createdAt }));
  await log.event({
    event: "unblinded",
    at: createdAt,
    sealed_sha256: round.sealedSha256,
    verdicts_sha256: judged.verdictsSha256,
    scores: records.length,
  });
  return { scores: records.length, unblindedAt: createdAt };
}
