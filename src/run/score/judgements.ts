/**
 * The one typed reader of a run's judgements (verdicts and blinding state, store migration
 * 0005), and the record of them as it happens: every blinding event and judge call goes to the
 * store, and is mirrored to the files docs/SCORING.md promises users (exports only: nothing
 * reads them back).
 */
import { appendFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { sha256Hex } from "../../scoring/blinding/seal.js";
import type { GuessingCheck } from "../../scoring/blinding/guessing.js";
import type { BlindingRound, TrialStore, VerdictRecord } from "../store/types.js";
import { scrubSecrets } from "../../core/secrets.js";

/** Files written for users beside the store (see docs/SCORING.md); the store is the record. */
export const BLINDING_FILES = {
  mapping: "blinding-mapping.json",
  seal: "blinding-seal.json",
  summary: "blinding.json",
  log: "blinding-log.jsonl",
  verdicts: "judge-verdicts.jsonl",
  calls: "judge-calls.jsonl",
  agreement: "judge-agreement.json",
} as const;

/** The documented shape of blinding.json. */
export interface BlindingSummary {
  blinded: true;
  sealed_sha256: string;
  sealed_at: string;
  judge: string;
  guessing_check: GuessingCheck | null;
  unblinded_at: string | null;
  verdicts_sha256: string;
  responses: number;
}

export interface Judgements {
  round: BlindingRound;
  /** Null while the round is sealed but not yet judged. */
  summary: BlindingSummary | null;
  verdicts: (VerdictRecord & { trialId: string | null })[];
  log: ({ event: string; at: string } & Record<string, unknown>)[];
}

/** A run's judgements, or undefined when it was never judged. */
export async function readJudgements(store: TrialStore, runId: string): Promise<Judgements | undefined> {
  const round = await store.getBlindingRound(runId);
  if (!round) return undefined;
  const [verdicts, log] = await Promise.all([store.listVerdicts(runId), store.listBlindingLog(runId)]);
  return { round, summary: blindingSummaryOf(round), verdicts, log };
}

export function blindingSummaryOf(round: BlindingRound): BlindingSummary | null {
  if (!round.judged) return null;
  return {
    blinded: true,
    sealed_sha256: round.sealedSha256,
    sealed_at: round.sealedAt,
    judge: round.judged.judge,
    guessing_check: round.judged.guessingCheck as GuessingCheck | null,
    unblinded_at: round.unblindedAt,
    verdicts_sha256: round.judged.verdictsSha256,
    responses: round.judged.responses,
  };
}

/** The verdicts as JSON lines, the text whose SHA-256 locks them. */
export function verdictsText(verdicts: readonly VerdictRecord[]): string {
  return verdicts.map((v) => JSON.stringify(v)).join("\n") + (verdicts.length > 0 ? "\n" : "");
}

export function verdictsSha256(verdicts: readonly VerdictRecord[]): string {
  return sha256Hex(verdictsText(verdicts));
}

/** Records a run's blinding events and judge calls in the store and mirrors them to the study directory. */
export class JudgementLog {
  private callSeq = 0;

  constructor(
    private readonly store: TrialStore,
    private readonly runId: string,
    private readonly dir: string,
  ) {}

  async event(event: { event: string; at: string } & Record<string, unknown>): Promise<void> {
    await this.store.appendBlindingLog(this.runId, event);
    appendFileSync(join(this.dir, BLINDING_FILES.log), scrubSecrets(`${JSON.stringify(event)}\n`));
  }

  /** Starts the judge-call log of a new round. */
  startCalls(): void {
    this.callSeq = 0;
    writeFileSync(join(this.dir, BLINDING_FILES.calls), "");
  }

  async call(record: Record<string, unknown>): Promise<void> {
    const seq = ++this.callSeq;
    // A judge's reply can echo its key: the mirror file is scrubbed as the store is.
    appendFileSync(join(this.dir, BLINDING_FILES.calls), scrubSecrets(`${JSON.stringify(record)}\n`));
    await this.store.recordJudgeCall(this.runId, seq, record);
  }

  /** Writes an export file (JSON, or text as given). */
  file(name: (typeof BLINDING_FILES)[keyof typeof BLINDING_FILES], content: unknown): void {
    const text = typeof content === "string" ? content : `${JSON.stringify(content, null, 2)}\n`;
    writeFileSync(join(this.dir, name), scrubSecrets(text));
  }
}
