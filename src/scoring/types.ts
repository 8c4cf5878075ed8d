import type { Item } from "../contracts/item.js";
import type { TaskInput } from "../contracts/task.js";
import type { ParseStatus } from "../contracts/trial.js";

export interface ScoreResult {
  parsedAnswer: string | null;
  parseStatus: ParseStatus;
  /** 1 correct/safe, 0 not, null when the scorer cannot decide. */
  score: number | null;
}

export interface Scorer {
  name: string;
  /** Bumped whenever the scorer's behaviour changes, so stored scores say which one made them. */
  version: string;
  score(item: Item, task: TaskInput, finalText: string): ScoreResult;
}
