/**
 * A trial id as the store makes it (core/hash.ts trialId: 24 lowercase hex digits) kept as 12
 * bytes in a byte array, where a table of half a million trials would otherwise hold as many
 * strings (about 40 bytes each on V8's heap). Ids of any other form are kept by their holders.
 */
const STORE_ID = /^[0-9a-f]{24}$/;

/** Bytes a store id takes. */
export const TRIAL_ID_BYTES = 12;

export function isStoreTrialId(id: string): boolean {
  return STORE_ID.test(id);
}

/** Writes a store id at place i. */
export function writeTrialId(bytes: Uint8Array, i: number, id: string): void {
  bytes.set(Buffer.from(id, "hex"), i * TRIAL_ID_BYTES);
}

/** The store id at place i. */
export function readTrialId(bytes: Uint8Array, i: number): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset + i * TRIAL_ID_BYTES, TRIAL_ID_BYTES).toString("hex");
}

/** The sign of (the id at place i) - id, byte by byte, without decoding id into a buffer. */
export function compareTrialId(bytes: Uint8Array, i: number, id: string): number {
  const base = i * TRIAL_ID_BYTES;
  for (let k = 0; k < TRIAL_ID_BYTES; k++) {
    const difference = bytes[base + k] - ((hexDigit(id, 2 * k) << 4) | hexDigit(id, 2 * k + 1));
    if (difference !== 0) return difference;
  }
  return 0;
}

/** The sign of (the id at place i of `bytes`) - (the id at place j of `other`), byte by byte. */
export function compareTrialIdBytes(bytes: Uint8Array, i: number, other: Uint8Array, j: number): number {
  const base = i * TRIAL_ID_BYTES;
  const otherBase = j * TRIAL_ID_BYTES;
  for (let k = 0; k < TRIAL_ID_BYTES; k++) {
    const difference = bytes[base + k] - other[otherBase + k];
    if (difference !== 0) return difference;
  }
  return 0;
}

/** A lowercase hex digit's value (the id is a store id). */
function hexDigit(text: string, at: number): number {
  const code = text.charCodeAt(at);
  return code <= 57 ? code - 48 : code - 87;
}
