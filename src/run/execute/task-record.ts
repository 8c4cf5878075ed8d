/**
 * The stored record of what a trial was sent: its rendered task as canonical JSON and the
 * SHA-256 of that JSON. Stored with the trial's completion; rescoring and judging read it
 * back instead of re-rendering with today's code, and compare hashes to detect drift.
 */
import type { TaskInput } from "../../contracts/task.js";
import { canonicalJson, sha256 } from "../../core/hash.js";
import type { StoredTask } from "../store/types.js";

export function storedTask(task: TaskInput): StoredTask {
  const json = canonicalJson(task);
  return { hash: sha256(json), json };
}

/** The hash a task would be stored under (to compare a re-rendering with what was stored). */
export function taskHash(task: TaskInput): string {
  return sha256(canonicalJson(task));
}
