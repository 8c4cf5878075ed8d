/**
 * The secrets in use (API key values), and the one scrubber of every text that leaves the
 * process. A provider's reply or error can echo its key (a misconfigured proxy, a 401 body, a
 * prompt that asks for it): the store's writes (store/scrub-plugin.ts), the providers' error
 * messages (models/keys.ts), the command's standard output and error (cli/scrubbed-output.ts:
 * messages, notes, progress lines) and the judging logs all pass through `scrubSecrets`, so a
 * key never lands in the store, its exports, the report, the viewer, a log or the terminal. The
 * keys are registered when they are read from the environment; the process keeps them in memory
 * anyway, to send them.
 */

const REDACTED = "[redacted]";
/** Shorter values are not scrubbed: they would match ordinary text. */
const MIN_SECRET_LENGTH = 8;

const forms = new Set<string>();
let longestFirst: string[] = [];

/** Registers secret values: each is scrubbed from then on, with its common encodings. */
export function registerSecrets(values: Iterable<string>): void {
  let added = false;
  for (const value of values) {
    if (value.length < MIN_SECRET_LENGTH) continue;
    for (const form of encodedForms(value)) {
      if (!forms.has(form)) {
        forms.add(form);
        added = true;
      }
    }
  }
  // Longest first, so a key's full form is replaced before a shorter form inside it.
  if (added) longestFirst = [...forms].sort((a, b) => b.length - a.length);
}

/** Whether any secret is registered (callers skip work when none is). */
export function hasSecrets(): boolean {
  return longestFirst.length > 0;
}

/** The text with every registered secret, in every registered form, replaced by "[redacted]". */
export function scrubSecrets(text: string): string {
  let out = text;
  for (const form of longestFirst) if (out.includes(form)) out = out.split(form).join(REDACTED);
  return out;
}

/** Forgets every registered secret (tests). */
export function clearSecrets(): void {
  forms.clear();
  longestFirst = [];
}

/**
 * The value as it may appear in text: itself, URL-encoded, JSON-escaped, hex (lower and upper
 * case), and base64 (standard and URL-safe) at each of the three byte alignments it can have
 * inside a longer encoded text.
 */
export function encodedForms(value: string): string[] {
  const bytes = Buffer.from(value, "utf8");
  const hex = bytes.toString("hex");
  const out = new Set([value, encodeURIComponent(value), JSON.stringify(value).slice(1, -1), hex, hex.toUpperCase()]);
  for (let offset = 0; offset < 3; offset++) {
    const base64 = alignedBase64(bytes, offset);
    out.add(base64);
    out.add(base64.replaceAll("+", "-").replaceAll("/", "_"));
  }
  return [...out].filter((form) => form.length >= MIN_SECRET_LENGTH);
}

/**
 * The base64 characters that depend only on `bytes` when they start `offset` bytes into a
 * 3-byte group: the leading characters shared with earlier bytes and the trailing one shared
 * with later bytes are dropped, so the form matches wherever the value sits in encoded data.
 */
function alignedBase64(bytes: Buffer, offset: number): string {
  const encoded = Buffer.concat([Buffer.alloc(offset), bytes])
    .toString("base64")
    .replace(/=+$/, "");
  const lead = Math.ceil((offset * 8) / 6);
  const trailingPartial = (offset + bytes.length) % 3 === 0 ? 0 : 1;
  return encoded.slice(lead, encoded.length - trailingPartial);
}
