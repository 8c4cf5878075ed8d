import { readdirSync, readFileSync, statSync } from "node:fs";
import { extname, join, relative, resolve, sep } from "node:path";
import * as z from "zod";
import { lazySchema } from "../../contracts/lazy-schema.js";
import { InputError } from "../../core/errors.js";
import { isOutsideFolder } from "../../core/guarded-read.js";
import { yamlLibrary } from "../../core/yaml-library.js";
import { htmlTitle, htmlToText } from "./html-text.js";
import type { SearchHit, WebBackend, WebPage } from "./types.js";

/**
 * The offline web: a local folder of documents (.txt, .md, .html) searched by term overlap and
 * fetched by URL, for tests, demos and runs that must not reach the internet. A document may
 * start with front matter (`---`, `title:` and `url:`, `---`) to give itself a title and a URL;
 * otherwise its URL is `offline://<path in the folder>`.
 */
export const OfflineWebSettings = lazySchema(() =>
  z.strictObject({
    folder: z.string().min(1).describe("Folder of .txt/.md/.html documents (relative to the spec file)"),
    allow_outside: z
      .boolean()
      .optional()
      .describe("Serve a folder outside the spec's folder (default: refused, so a spec cannot serve host files)"),
  }),
);

const DOCUMENT_EXTENSIONS = new Set([".txt", ".md", ".html", ".htm"]);
const SNIPPET_CHARS = 240;

interface OfflineDocument {
  url: string;
  title: string;
  text: string;
  /** The document as written (front matter removed), for `web_browser`. */
  raw: WebPage;
  /** Lower-case word -> occurrences. */
  terms: Map<string, number>;
}

/** The folder of an offline web, resolved from the spec's folder; outside it only with allow_outside: true. */
export function offlineWebFolder(settings: unknown, specDir: string): string {
  const { folder, allow_outside } = OfflineWebSettings.parse(settings);
  const problem = outsideFolderProblem(folder, allow_outside, specDir);
  if (problem) throw new InputError(`agents.web.folder: ${problem}`);
  return resolve(specDir, folder);
}

/** Why `folder` may not be served: it lies outside the spec's folder and allow_outside is not set. */
export function outsideFolderProblem(
  folder: string,
  allowOutside: boolean | undefined,
  specDir: string,
): string | null {
  if (allowOutside === true || !isOutsideFolder(folder, specDir)) return null;
  return `expected a folder inside the spec's folder (${specDir}), found '${folder}'; the model would read the host's files there (set allow_outside: true to serve it anyway)`;
}

export function createOfflineWeb(folder: string): WebBackend {
  const stats = statSync(folder, { throwIfNoEntry: false });
  if (!stats?.isDirectory()) throw new InputError(`offline web folder '${folder}' is not a directory`);
  let loaded: Promise<OfflineDocument[]> | undefined;
  const documents = () => {
    loaded ??= readDocuments(folder);
    return loaded;
  };
  return {
    name: "offline",
    search: async (query, maxResults) => rank(await documents(), query).slice(0, maxResults),
    fetch: async (url) => {
      const document = findDocument(await documents(), url);
      return `${document.title}\n\n${document.text}`;
    },
    page: async (url) => findDocument(await documents(), url).raw,
  };
}

function findDocument(all: readonly OfflineDocument[], url: string): OfflineDocument {
  const document = all.find((doc) => doc.url === url || doc.url === url.replace(/\/$/, ""));
  if (document === undefined) throw new Error(`no page at ${url} (offline web: ${all.length} documents)`);
  return document;
}

const CONTENT_TYPES: Record<string, string> = {
  ".html": "text/html",
  ".htm": "text/html",
  ".md": "text/markdown",
  ".txt": "text/plain",
};

function readDocuments(folder: string): Promise<OfflineDocument[]> {
  const paths = listFiles(folder).filter((path) => DOCUMENT_EXTENSIONS.has(extname(path).toLowerCase()));
  return Promise.all(paths.map((path) => readDocument(folder, path)));
}

function listFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .sort((a, b) => a.name.localeCompare(b.name))
    .flatMap((entry) => (entry.isDirectory() ? listFiles(join(dir, entry.name)) : [join(dir, entry.name)]));
}

async function readDocument(folder: string, path: string): Promise<OfflineDocument> {
  const raw = readFileSync(path, "utf8");
  const { meta, body } = frontMatter(raw, path);
  const isHtml = /\.html?$/i.test(path);
  const text = isHtml ? await htmlToText(body) : body.trim();
  const name = relative(folder, path).split(sep).join("/");
  const title = meta.title ?? (isHtml ? htmlTitle(body) : undefined) ?? firstLine(text) ?? name;
  const url = meta.url ?? `offline://${name}`;
  const page = { url, contentType: CONTENT_TYPES[extname(path).toLowerCase()] ?? "text/plain", body };
  return { url, title, text, raw: page, terms: termCounts(`${title}\n${text}`) };
}

function frontMatter(raw: string, path: string): { meta: { title?: string; url?: string }; body: string } {
  const match = /^---\r?\n([\s\S]*?)\r?\n---\r?\n/.exec(raw);
  if (match === null) return { meta: {}, body: raw };
  const parsed = z
    .object({ title: z.string().optional(), url: z.string().optional() })
    .safeParse(yamlLibrary().parse(match[1]) ?? {});
  if (!parsed.success)
    throw new InputError(
      `${path}: front matter needs string fields title and url (${parsed.error.issues[0]?.message})`,
    );
  return { meta: parsed.data, body: raw.slice(match[0].length) };
}

function firstLine(text: string): string | undefined {
  return text
    .split("\n")
    .find((line) => line.trim().length > 0)
    ?.replace(/^#+\s*/, "")
    .trim();
}

function words(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

function termCounts(text: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const word of words(text)) counts.set(word, (counts.get(word) ?? 0) + 1);
  return counts;
}

/**
 * Documents by relevance: sum over the query's distinct words of log(1 + tf) * log(1 + N / df),
 * so a rare word counts more than a common one; documents matching no word are left out, ties
 * go by URL so the order is reproducible.
 */
function rank(documents: readonly OfflineDocument[], query: string): SearchHit[] {
  const queryWords = [...new Set(words(query))];
  const df = new Map(queryWords.map((word) => [word, documents.filter((doc) => doc.terms.has(word)).length]));
  return documents
    .map((doc) => ({
      doc,
      score: queryWords.reduce((sum, word) => {
        const tf = doc.terms.get(word) ?? 0;
        return tf === 0 ? sum : sum + Math.log1p(tf) * Math.log1p(documents.length / (df.get(word) ?? 1));
      }, 0),
    }))
    .filter(({ score }) => score > 0)
    .sort((a, b) => b.score - a.score || a.doc.url.localeCompare(b.doc.url))
    .map(({ doc }) => ({ title: doc.title, url: doc.url, snippet: snippet(doc.text, queryWords) }));
}

/** The line holding the most query words, cut to a snippet. */
function snippet(text: string, queryWords: readonly string[]): string {
  const lines = text.split("\n").filter((line) => line.trim().length > 0);
  const hits = (line: string) => new Set(words(line).filter((word) => queryWords.includes(word))).size;
  const best = lines.reduce((a, b) => (hits(b) > hits(a) ? b : a), lines[0] ?? "");
  return best.length <= SNIPPET_CHARS ? best : `${best.slice(0, SNIPPET_CHARS)}...`;
}
