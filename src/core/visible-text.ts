/**
 * Text from logs shown to a person: ids and labels are kept as data, whatever they hold, but a
 * control character (NUL, escape, ...) or a bidirectional override (which can make `exe.txt`
 * read as `txt.exe`) is shown as its escape, `\u{202E}`, so what is printed is what is stored.
 */

// C0 and C1 controls except tab and newline, and the bidi marks, embeddings, overrides and isolates.
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding them is the point
const HIDDEN = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/g;

export function visibleText(text: string): string {
  return text.replace(HIDDEN, (c) => `\\u{${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}}`);
}
