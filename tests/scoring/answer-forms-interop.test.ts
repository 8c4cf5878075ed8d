/**
 * The extractor on real model outputs: the Inspect AI logs in ../shared/interop (`inspect/*.eval`
 * zips and the older single-file `inspect-json/*.json`; gpt-4o, gpt-4o-mini, llama 3.1, gemma3,
 * qwen2.5, claude-sonnet-4). Wherever a log's own scorer recorded the answer it read (the
 * `choice` scorer's letter, the `match` scorer's text), our extraction of the same output must
 * name the same answer, and so agree with the log's correct/incorrect verdict. Samples with no
 * recorded answer, or whose recorded answer is no option (a model-graded free-text answer), are
 * not compared. Skips with the reason when the shared folder is absent ($PARALLAX_SHARED_DIR).
 */
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { extractMcAnswer, fold } from "../../src/scoring/mc-extract.js";
import { readZip } from "../helpers/zip.js";
import { describeNeeding, test } from "../helpers/prerequisites.js";

const repoRoot = resolve(import.meta.dirname, "..", "..");
const interopDir = join(resolve(process.env.PARALLAX_SHARED_DIR ?? resolve(repoRoot, "..", "shared")), "interop");
const evalDir = join(interopDir, "inspect");
const jsonDir = join(interopDir, "inspect-json");

interface InspectScore {
  value?: unknown;
  answer?: unknown;
}
interface InspectMessage {
  role: string;
  content: string | { type: string; text?: string }[];
}
interface InspectSample {
  id: string | number;
  epoch?: number;
  choices?: string[] | null;
  target?: string | string[];
  messages?: InspectMessage[];
  output?: { completion?: string | null };
  scores?: Record<string, InspectScore> | null;
}

interface LogSamples {
  log: string;
  task: string;
  samples: InspectSample[];
}

function readLogs(): LogSamples[] {
  const logs: LogSamples[] = [];
  if (existsSync(evalDir)) {
    for (const name of readdirSync(evalDir)
      .filter((n) => n.endsWith(".eval"))
      .sort()) {
      const files = readZip(join(evalDir, name));
      const header = JSON.parse(files.get("header.json")?.toString("utf8") ?? "{}") as { eval?: { task?: string } };
      const samples = [...files.entries()]
        .filter(([file]) => /^samples\/[^/]+\.json$/.test(file))
        .map(([, bytes]) => JSON.parse(bytes.toString("utf8")) as InspectSample);
      logs.push({ log: `inspect/${name}`, task: header.eval?.task ?? name, samples });
    }
  }
  if (existsSync(jsonDir)) {
    for (const name of readdirSync(jsonDir)
      .filter((n) => n.endsWith(".json"))
      .sort()) {
      const log = JSON.parse(readFileSync(join(jsonDir, name), "utf8")) as {
        eval?: { task?: string };
        samples?: InspectSample[];
      };
      logs.push({ log: `inspect-json/${name}`, task: log.eval?.task ?? name, samples: log.samples ?? [] });
    }
  }
  return logs;
}

/** The model's final output: the completion, else the text of the last assistant message. */
function finalOutput(sample: InspectSample): string | undefined {
  if (sample.output?.completion) return sample.output.completion;
  const last = sample.messages?.filter((m) => m.role === "assistant").at(-1);
  if (last === undefined) return undefined;
  return typeof last.content === "string"
    ? last.content
    : last.content.flatMap((part) => (part.type === "text" && part.text ? [part.text] : [])).join("\n");
}

const targetOf = (sample: InspectSample) => (Array.isArray(sample.target) ? sample.target[0] : sample.target) ?? "";

/**
 * The options of a sample: its `choices`; for a task without choices whose targets (over every
 * log of the task) take a few short values (Yes/No classification), those values, as the prompt
 * asks for one of them.
 */
function optionsOf(sample: InspectSample, taskSamples: InspectSample[]): string[] | undefined {
  if (sample.choices && sample.choices.length > 0) return sample.choices;
  const targets = [...new Set(taskSamples.map((s) => targetOf(s).trim()).filter((t) => t !== ""))].sort();
  return targets.length >= 2 && targets.length <= 5 && targets.every((t) => t.length <= 40) ? targets : undefined;
}

interface Comparison {
  where: string;
  output: string;
  options: string[];
  /** The option index the log's scorer read, and whether it scored the sample correct. */
  recorded: number;
  correct: boolean | undefined;
  gold: number | undefined;
}

function comparisons(): Comparison[] {
  const out: Comparison[] = [];
  const logs = readLogs();
  for (const { log, task, samples } of logs) {
    const taskSamples = logs.filter((l) => l.task === task).flatMap((l) => l.samples);
    for (const sample of samples) {
      const output = finalOutput(sample);
      const options = optionsOf(sample, taskSamples);
      if (output === undefined || options === undefined) continue;
      const letters = options.map((_, i) => String.fromCharCode(65 + i));
      const byChoices = Boolean(sample.choices && sample.choices.length > 0);
      const indexOf = (value: string) =>
        byChoices ? letters.indexOf(value.trim()) : options.findIndex((o) => fold(o) === fold(value));
      for (const [scorer, score] of Object.entries(sample.scores ?? {})) {
        if (typeof score.answer !== "string") continue;
        const recorded = indexOf(score.answer);
        if (recorded < 0) continue; // not an option: a model-graded free-text answer
        const gold = indexOf(targetOf(sample));
        out.push({
          where: `${log} sample ${sample.id} epoch ${sample.epoch ?? 1} (${scorer})`,
          output,
          options,
          recorded,
          correct: score.value === "C" ? true : score.value === "I" ? false : undefined,
          gold: gold < 0 ? undefined : gold,
        });
      }
    }
  }
  return out;
}

const skip = existsSync(evalDir)
  ? false
  : `the Inspect logs are not in ${evalDir} (set PARALLAX_SHARED_DIR to the shared materials folder)`;

describeNeeding(skip, "extraction agrees with the answers real Inspect logs recorded", () => {
  const cases = skip ? [] : comparisons();

  test("the logs give answers to compare (gpt-4o, llama, gemma, qwen, claude)", () => {
    assert.ok(cases.length >= 20, `only ${cases.length} recorded answers found`);
    for (const log of ["mmlu", "log_streaming", "log_formats", "log_read_sample"]) {
      assert.ok(
        cases.some((c) => c.where.includes(log)),
        log,
      );
    }
  });

  for (const c of cases) {
    test(c.where, () => {
      const letters = c.options.map((_, i) => String.fromCharCode(65 + i));
      const got = extractMcAnswer(c.output, letters, c.options);
      assert.equal(got.letter, letters[c.recorded], `${JSON.stringify(c.output.slice(-200))} -> ${got.marker}`);
      if (c.correct !== undefined && c.gold !== undefined) {
        assert.equal(letters.indexOf(got.letter ?? "") === c.gold, c.correct, "the log's verdict");
      }
    });
  }
});
