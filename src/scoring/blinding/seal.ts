/**
 * The sealed UUID-to-condition mapping (App. Q.2, step 2): every judged response gets a UUID v4;
 * the mapping file is written once, its SHA-256 recorded before any judge call, and every later
 * use (guessing check, unblinding) first verifies the file still hashes to the seal, so an edited
 * mapping is detected rather than silently unblinded.
 */
import { createHash, randomUUID } from "node:crypto";

export interface BlindingEntry {
  uuid: string;
  trialId: string;
  model: string;
  benchmark: string;
  itemId: string;
  conditionHash: string;
  /** The condition as a label, e.g. "format=oe scaffold=react". */
  configuration: string;
}

export interface SealedMapping {
  /** The exact bytes to write (UTF-8 JSON, one entry a line for diffing). */
  text: string;
  sha256: string;
}

export function newUuid(): string {
  return randomUUID();
}

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

export function isUuidV4(value: string): boolean {
  return UUID_V4.test(value);
}

export function sha256Hex(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

export function sealMapping(entries: readonly BlindingEntry[]): SealedMapping {
  const text = `{"entries":[\n${entries.map((e) => JSON.stringify(e)).join(",\n")}\n]}\n`;
  return { text, sha256: sha256Hex(text) };
}

/** Parses a mapping file after checking it against the seal; throws on any mismatch. */
export function openSealedMapping(text: string, sealedSha256: string): BlindingEntry[] {
  const actual = sha256Hex(text);
  if (actual !== sealedSha256) {
    throw new Error(
      `blinding mapping does not match its seal (sha256 ${actual}, sealed ${sealedSha256}): it was modified`,
    );
  }
  const parsed = JSON.parse(text) as { entries: BlindingEntry[] };
  return parsed.entries;
}
