/**
 * Kinds of scaffold sub-call that the simulated panel (src/models/sim.ts) answers in their own
 * way. A scaffold declares the wording that marks each of its sub-calls (`Scaffold.callMarkers`,
 * built from its own prompt constants); the run layer hands the union to the provider, so the
 * sim holds no copy of any scaffold's wording.
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
  /** How an agent scaffold marks a failed tool call in the observation it sends back. */
  "tool_error",
] as const;
export type SubCallKind = (typeof SUB_CALL_KINDS)[number];

/**
 * Where the sim looks for each kind: critique, check and adjudicate in the system message, react
 * in the first user message, the others in the last user message. A `chain` pattern captures the
 * step number (1-4) in group 1. The agent kinds are looked for in the system message, tool_error in tool messages.
 */
export type ScaffoldCallMarkers = Readonly<Partial<Record<SubCallKind, RegExp>>>;

/** Every registered scaffold's markers, by kind. */
export type CallMarkers = Readonly<Partial<Record<SubCallKind, readonly RegExp[]>>>;
