/**
 * What a scaffold's sub-call does and what it shows, declared by the scaffold with the call
 * (the `does` argument of `ScaffoldCall`) and passed to the provider on the request
 * (`GenerateRequest.subCall`). Real providers ignore it; the simulated panel (src/models/sim/)
 * answers each kind in its own way from these fields, so it reads no scaffold's wording. A call
 * without a declaration is a plain question.
 */
export const SUB_CALL_KINDS = [
  "decompose",
  "map",
  "reduce",
  "critique",
  "revise",
  "react",
  "chain",
  "check",
  "adjudicate",
  /** Agent scaffolds (GAIA App. C): S1's ReAct agent, S2's planner/actor/rater, S3's planner/executor. */
  "agent",
  "planner",
  "actor",
  "rater",
  "executor",
] as const;
export type SubCallKind = (typeof SUB_CALL_KINDS)[number];

/** What an invocation-chain step's wording invokes (neutral: a plain re-read). */
export type ChainInvocation = "bias" | "misconception" | "helpfulness" | "neutral";

/** The agent kinds: calls of a tool-using trajectory, or the planner and rater around it. */
export type AgentSubCallKind = "agent" | "planner" | "actor" | "rater" | "executor";

export type SubCall =
  /** Splits the task into at most `maxParts` sub-tasks. */
  | { kind: "decompose"; maxParts: number }
  /** Works on one sub-task (what it sees is its message). */
  | { kind: "map" }
  /** Combines the workers' `results` (their replies, in order) into an answer to the whole task. */
  | { kind: "reduce"; results: readonly string[] }
  /** Reviews another call's `draft` answer and ends with a verdict. */
  | { kind: "critique"; draft: string }
  /** Revises the conversation's answer after a critique. */
  | { kind: "revise" }
  /** A turn of a ReAct conversation of at most `maxTurns` turns; `final`: the forced last request. */
  | { kind: "react"; maxTurns: number; final: boolean }
  /**
   * Step `step` (1-4) of an invocation chain, re-examining the `previous` step's answer under
   * wording that `invokes` a property, `insistently` or not; `keepIfCorrect`: the wording asks to
   * keep a correct answer unchanged.
   */
  | {
      kind: "chain";
      step: number;
      previous?: string;
      invokes: ChainInvocation;
      insistently: boolean;
      keepIfCorrect: boolean;
    }
  /** A bias checker reviewing the `proposed` answer. */
  | { kind: "check"; proposed: string }
  /** An adjudicator deciding between the `first` answer and the checker's `review`. */
  | { kind: "adjudicate"; first: string; review: string }
  /** A call of an agent scaffold; `lastToolFailed`: the conversation ends with a failed tool call's result. */
  | { kind: AgentSubCallKind; lastToolFailed?: boolean };
