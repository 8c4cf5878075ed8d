/**
 * The store's content-addressed texts (migration 0021): what many rows repeat is stored once in
 * `texts` and the rows hold a reference, `@` followed by the text's key.
 * - A trial's condition and a call's JSON columns (messages, params_used, note, checks) are kept
 *   whole: the column holds either the JSON itself (short ones; JSON never starts with `@`) or a
 *   reference to it, so SQL can still read them (browse.ts joins `texts` for its search).
 * - A task is kept as a tree: each string and each object or array whose JSON is long is replaced
 *   by a reference to its own (so encoded) JSON, so the few-shot block, the template and the item
 *   text that many tasks share are stored once. The stored task is `@` followed by the encoded
 *   root; in it a real string that starts with `@` is written with one more `@`. A task whose
 *   encoding does not give back its exact JSON is stored as it is.
 * Keys are the first 96 bits of the text's SHA-256 in base64url (16 characters).
 */
import { hash } from "node:crypto";
import { type Kysely, type RawBuilder, sql, type Transaction } from "kysely";
import { compareKeys } from "./lock-conflicts.js";

export const REF = "@";

/**
 * Texts shorter than these stay in their row. A whole JSON column (parameters, a condition) is
 * shared from a shorter length than a task's parts, which are often unique to their task.
 */
export const MIN_SHARED_LENGTH = 64;
export const MIN_SHARED_JSON_LENGTH = 32;

// biome-ignore lint/suspicious/noExplicitAny: used on the store's database and in migrations (Kysely<any>)
type AnyDb = Kysely<any> | Transaction<any>;

/** Texts to insert, by key. */
export type NewTexts = Map<string, string>;

export function textKey(text: string): string {
  return hash("sha256", text, "buffer").subarray(0, 12).toString("base64url");
}

function share(text: string, out: NewTexts): string {
  const key = textKey(text);
  out.set(key, text);
  return REF + key;
}

/** A JSON column as stored: the JSON, or a reference to it when long. */
export function sharedJson(json: string, out: NewTexts): string {
  return json.length < MIN_SHARED_JSON_LENGTH ? json : share(json, out);
}

/** SQL for a JSON column's text (the column, or the shared text it refers to). */
export function resolvedJsonSql(column: RawBuilder<unknown>): RawBuilder<string> {
  return sql<string>`case when substr(${column}, 1, 1) = '@'
    then (select x.text from texts x where x.key = substr(${column}, 2)) else ${column} end`;
}

/** The key a stored JSON column refers to, or undefined when it holds its JSON. */
export function refOf(column: string | null): string | undefined {
  return column?.startsWith(REF) ? column.slice(1) : undefined;
}

/** The JSON a stored column holds or refers to (`texts` must hold its key). */
export function jsonOf(column: string, texts: ReadonlyMap<string, string>): string {
  const key = refOf(column);
  if (key === undefined) return column;
  const text = texts.get(key);
  if (text === undefined) throw new Error(`store: text ${key} is missing from the texts table`);
  return text;
}

/** A task's JSON as stored: its encoded tree, or the JSON itself when the tree would not give it back. */
export function encodeTask(json: string, out: NewTexts): string {
  const mine: NewTexts = new Map();
  const root = encodeNode(JSON.parse(json), mine, true);
  const stored = REF + JSON.stringify(root);
  if (JSON.stringify(decodeNode(JSON.parse(stored.slice(1)), mine)) !== json) return json;
  for (const [key, text] of mine) out.set(key, text);
  return stored;
}

function encodeNode(value: unknown, out: NewTexts, root = false): unknown {
  if (typeof value === "string") {
    const escaped = value.startsWith(REF) ? REF + value : value;
    return value.length >= MIN_SHARED_LENGTH ? share(JSON.stringify(escaped), out) : escaped;
  }
  if (value === null || typeof value !== "object") return value;
  const encoded = Array.isArray(value)
    ? value.map((v) => encodeNode(v, out))
    : Object.fromEntries(Object.entries(value).map(([k, v]) => [k, encodeNode(v, out)]));
  if (root) return encoded;
  const json = JSON.stringify(encoded);
  return json.length < MIN_SHARED_LENGTH ? encoded : share(json, out);
}

export function decodeNode(value: unknown, texts: ReadonlyMap<string, string>): unknown {
  if (typeof value === "string") {
    if (!value.startsWith(REF)) return value;
    if (value.startsWith(REF + REF)) return value.slice(1);
    return decodeNode(JSON.parse(jsonOf(value, texts)), texts);
  }
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map((v) => decodeNode(v, texts));
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, decodeNode(v, texts)]));
}

/** The references in an encoded node (not followed). */
function nodeRefs(value: unknown, into: Set<string>): void {
  if (typeof value === "string") {
    if (value.startsWith(REF) && !value.startsWith(REF + REF)) into.add(value.slice(1));
  } else if (Array.isArray(value)) {
    for (const v of value) nodeRefs(v, into);
  } else if (value !== null && typeof value === "object") {
    for (const v of Object.values(value)) nodeRefs(v, into);
  }
}

/**
 * Reads texts by key, keeping a bounded amount of them: the texts a study shares (prompts, few-shot
 * blocks) are read once, not once per trial. The bound is in characters, not texts: a paper-scale
 * study's log-prob continuations run to kilobytes each, and 20,000 of them held 9 MB or more for
 * as long as the store stayed open (through a whole `analyze`).
 */
export class TextReader {
  private readonly known = new Map<string, string>();
  private knownChars = 0;

  constructor(
    private readonly db: AnyDb,
    private readonly rememberedChars = 2_000_000,
  ) {}

  /** The texts of `keys`, all of them (throws when one is missing). */
  async texts(keys: Iterable<string>): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    const missing: string[] = [];
    for (const key of new Set(keys)) {
      const text = this.known.get(key);
      if (text === undefined) missing.push(key);
      else out.set(key, text);
    }
    for (let i = 0; i < missing.length; i += 1_000) {
      const rows = await this.db
        .selectFrom("texts")
        .select(["key", "text"])
        .where("key", "in", missing.slice(i, i + 1_000))
        .execute();
      for (const row of rows as { key: string; text: string }[]) {
        out.set(row.key, row.text);
        if (this.knownChars + row.text.length > this.rememberedChars) {
          this.known.clear();
          this.knownChars = 0;
        }
        this.known.set(row.key, row.text);
        this.knownChars += row.text.length;
      }
    }
    const absent = missing.find((key) => !out.has(key));
    if (absent !== undefined) throw new Error(`store: text ${absent} is missing from the texts table`);
    return out;
  }

  /** The JSON of stored tasks (as `encodeTask` stored them), in their order. */
  async taskJson(stored: readonly string[]): Promise<string[]> {
    const roots = stored.map((s) => (s.startsWith(REF) ? JSON.parse(s.slice(1)) : undefined));
    const texts = await this.referencedTexts(roots.filter((root) => root !== undefined));
    return stored.map((s, i) => (roots[i] === undefined ? s : JSON.stringify(decodeNode(roots[i], texts))));
  }

  /** Every text the encoded nodes refer to, directly or through other texts. */
  async referencedTexts(nodes: readonly unknown[]): Promise<Map<string, string>> {
    const texts = new Map<string, string>();
    let pending = new Set<string>();
    for (const node of nodes) nodeRefs(node, pending);
    // Breadth first: each level's texts in one read.
    while (pending.size > 0) {
      const found = await this.texts(pending);
      pending = new Set();
      for (const [key, text] of found) {
        texts.set(key, text);
        const refs = new Set<string>();
        nodeRefs(JSON.parse(text), refs);
        for (const ref of refs) if (!texts.has(ref)) pending.add(ref);
      }
    }
    return texts;
  }
}

/** Inserts new texts (a text already stored is kept), in key order so concurrent writers lock alike. */
export async function insertTexts(trx: AnyDb, texts: NewTexts, skip?: ReadonlySet<string>): Promise<void> {
  const rows = [...texts]
    .filter(([key]) => !skip?.has(key))
    .map(([key, text]) => ({ key, text }))
    .sort((a, b) => compareKeys(a.key, b.key));
  for (let i = 0; i < rows.length; i += 2_000) {
    await trx
      .insertInto("texts")
      .values(rows.slice(i, i + 2_000))
      .onConflict((oc) => oc.column("key").doNothing())
      .execute();
  }
}
