// fs.promises, not node:fs/promises: Node loads it (and readline with it) on first use, not with `plan`.
import { promises as fs } from "node:fs";
import { dirname, join } from "node:path";
import * as z from "zod";
import { lazySchema } from "../contracts/lazy-schema.js";
import { capText } from "./output.js";
import type { Tool, ToolContext } from "./types.js";
import { hostPathIn, sandboxPathOf } from "./work-dir.js";

const TextEditorArgs = lazySchema(() =>
  z.strictObject({
    command: z.enum(["view", "create", "str_replace", "insert"]).describe("The operation."),
    path: z.string().min(1).describe("File or directory, absolute under /workspace or relative to it."),
    file_text: z.string().optional().describe("For create: the content of the new file."),
    old_str: z.string().optional().describe("For str_replace: the text to replace; it must occur exactly once."),
    new_str: z.string().optional().describe("For str_replace: the replacement; for insert: the text to insert."),
    insert_line: z
      .number()
      .int()
      .min(0)
      .optional()
      .describe("For insert: the line after which new_str goes (0 = at the top)."),
    view_range: z
      .array(z.number().int().min(-1))
      .length(2)
      .optional()
      .describe("For view of a file: [first line, last line], 1-based; -1 as last line means to the end."),
  }),
);
type TextEditorCall = z.infer<typeof TextEditorArgs>;
type Observation = Awaited<ReturnType<Tool["run"]>>;

/**
 * View, create and edit text files in the trial's work dir. It runs on the host, so every path
 * goes through `hostPathIn`: nothing outside the work dir, and no link leading out of it.
 */
export const textEditorTool: Tool<TextEditorCall> = {
  name: "text_editor",
  description:
    "View, create and edit text files under /workspace. Commands: view (a file with line numbers, or a directory listing), create (write file_text to a new or existing file), str_replace (replace old_str, which must occur exactly once, by new_str), insert (insert new_str after line insert_line).",
  argumentsSchema: TextEditorArgs,
  run: async (args, context) => {
    const target = hostPathIn(context.workDir, args.path);
    if ("refused" in target) return failure(target.refused);
    try {
      return await EDITORS[args.command](args, target.path, context);
    } catch (error) {
      return failure(
        `${args.command} ${args.path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
      );
    }
  },
};

const EDITORS: Record<
  TextEditorCall["command"],
  (args: TextEditorCall, path: string, context: ToolContext) => Promise<Observation>
> = {
  view: async (args, path, context) => {
    const stats = await fs.lstat(path);
    if (stats.isDirectory()) return { output: await listing(context.workDir, path) };
    const lines = (await fs.readFile(path, "utf8")).split("\n");
    const [first, last] = args.view_range ?? [1, -1];
    if (first < 1) return failure(`view_range starts at line ${first}; lines are numbered from 1`);
    const end = last === -1 ? lines.length : Math.min(last, lines.length);
    if (first > lines.length || end < first)
      return failure(`view_range [${first}, ${last}] is outside the file's ${lines.length} lines`);
    const numbered = lines.slice(first - 1, end).map((line, i) => `${String(first + i).padStart(6)}\t${line}`);
    return { output: capText(numbered.join("\n"), context.limits.outputBytes).text };
  },
  create: async (args, path, context) => {
    if (args.file_text === undefined) return failure("create needs file_text");
    await fs.mkdir(dirname(path), { recursive: true });
    await writeOwned(path, args.file_text, context);
    return { output: `Created ${sandboxPathOf(context.workDir, path)}.` };
  },
  str_replace: async (args, path, context) => {
    if (args.old_str === undefined || args.old_str === "") return failure("str_replace needs a non-empty old_str");
    const text = await fs.readFile(path, "utf8");
    const occurrences = text.split(args.old_str).length - 1;
    if (occurrences !== 1)
      return failure(`old_str occurs ${occurrences} times in ${args.path}; it must occur exactly once`);
    await writeOwned(
      path,
      text.replace(args.old_str, () => args.new_str ?? ""),
      context,
    );
    return { output: `Replaced 1 occurrence in ${sandboxPathOf(context.workDir, path)}.` };
  },
  insert: async (args, path, context) => {
    if (args.insert_line === undefined || args.new_str === undefined)
      return failure("insert needs insert_line and new_str");
    const lines = (await fs.readFile(path, "utf8")).split("\n");
    if (args.insert_line > lines.length)
      return failure(`insert_line ${args.insert_line} is past the file's ${lines.length} lines`);
    lines.splice(args.insert_line, 0, ...args.new_str.split("\n"));
    await writeOwned(path, lines.join("\n"), context);
    return { output: `Inserted after line ${args.insert_line} of ${sandboxPathOf(context.workDir, path)}.` };
  },
};

/** Writes without following a final link (`hostPathIn` checked the path; this closes the gap to a link made since). */
async function writeOwned(path: string, text: string, context: ToolContext): Promise<void> {
  const existing = await fs.lstat(path).catch(() => undefined);
  if (existing?.isSymbolicLink()) throw new Error("is a symbolic link; edit its target instead");
  await fs.writeFile(path, text, "utf8");
  await context.ownFile(path);
}

/** Files and directories up to two levels deep, as the model sees their paths. */
async function listing(workDir: string, dir: string): Promise<string> {
  const entries: string[] = [];
  for (const entry of await fs.readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    entries.push(sandboxPathOf(workDir, path) + (entry.isDirectory() ? "/" : ""));
    if (entry.isDirectory()) {
      for (const inner of await fs.readdir(path, { withFileTypes: true })) {
        entries.push(sandboxPathOf(workDir, join(path, inner.name)) + (inner.isDirectory() ? "/" : ""));
      }
    }
  }
  return entries.sort().join("\n") || "(empty directory)";
}

function failure(message: string): Observation {
  return { output: `Error: ${message}`, error: message };
}
