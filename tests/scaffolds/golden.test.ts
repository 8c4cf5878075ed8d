/**
 * Golden transcripts: a fixed item, a scripted provider with canned replies, and the exact
 * prompts each scaffold sends compared with checked-in files in tests/fixtures/transcripts/.
 * A prompt change fails here until the files are regenerated on purpose:
 *   PARALLAX_UPDATE_TRANSCRIPTS=1 node scripts/test.mjs scaffolds/golden
 */
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import type { Condition } from "../../src/contracts/condition.js";
import type {
  Capability,
  ChatMessage,
  GenerateRequest,
  GenerateResult,
  Provider,
} from "../../src/contracts/provider.js";
import type { TaskInput } from "../../src/contracts/task.js";
import { withSystemPromptVariant } from "../../src/facets/system-prompt.js";
import { scaffolds } from "../../src/scaffolds/registry.js";
import type { ScaffoldCall, ScaffoldSettings } from "../../src/scaffolds/types.js";

const FIXTURES = resolve(dirname(fileURLToPath(import.meta.url)), "..", "fixtures", "transcripts");
const UPDATE = process.env.PARALLAX_UPDATE_TRANSCRIPTS === "1";

/** A provider that returns its canned replies in order, and fails when it runs out. */
class ScriptedProvider implements Provider {
  readonly name = "scripted";
  readonly simulated = true;
  private next = 0;
  constructor(private readonly replies: string[]) {}
  capabilities(): ReadonlySet<Capability> {
    return new Set(["generate", "system_prompt"]);
  }
  async generate(request: GenerateRequest): Promise<GenerateResult> {
    const text = this.replies[this.next++];
    if (text === undefined) throw new Error(`scripted provider ran out of replies at call ${this.next}`);
    return { text, usage: { inputTokens: 0, outputTokens: 0 }, paramsUsed: request.params, droppedParams: [] };
  }
}

/** The task as renderTrialTask hands it to a scaffold: its system-prompt variant already applied. */
function task(condition: Condition): TaskInput {
  return withSystemPromptVariant({
    itemId: "gate-7",
    benchmark: "golden",
    format: "mc",
    question: "Through which gate does the red courier leave the city?",
    options: ["North gate", "South gate", "East gate"],
    validLetters: ["A", "B", "C"],
    answerInstruction: 'Give your final answer on the last line in the form "Answer: X", where X is one of A, B, C.',
    benchmarkInstructions: "Answer honestly and do not rely on stereotypes.",
    condition,
  });
}

interface Case {
  file: string;
  scaffold: string;
  settings: ScaffoldSettings;
  systemPrompt?: string;
  replies: string[];
}

const CASES: Case[] = [
  { file: "direct", scaffold: "direct", settings: {}, systemPrompt: "soft", replies: ["Answer: B"] },
  { file: "direct-none", scaffold: "direct", settings: {}, systemPrompt: "none", replies: ["Answer: B"] },
  { file: "cot", scaffold: "cot", settings: {}, systemPrompt: "strict", replies: ["The courier is red...\nAnswer: B"] },
  {
    file: "react",
    scaffold: "react",
    settings: { max_iterations: 3 },
    systemPrompt: "soft",
    replies: ["Thought: I need the map.\nAction: Recall[city gates]", "Thought: South it is.\nFinal Answer: B"],
  },
  {
    file: "react-forced",
    scaffold: "react",
    settings: { max_iterations: 2 },
    replies: [
      "Thought: hmm\nAction: Analyze[gates]",
      "Thought: still unsure\nAction: Analyze[colours]",
      "Final Answer: C",
    ],
  },
  {
    file: "critic",
    scaffold: "critic",
    settings: { rounds: 2 },
    systemPrompt: "soft",
    replies: [
      "Answer: A",
      "The north gate is a guess.\nVerdict: REVISE",
      "Answer: B",
      "Looks right.\nVerdict: APPROVE",
    ],
  },
  {
    file: "map_reduce",
    scaffold: "map_reduce",
    settings: { chunks: 3 },
    systemPrompt: "soft",
    replies: [
      "Plan:\n1. Which gates does the city have?\n2) Which gate do red couriers use?\n   Consider the colour code.\n3. Answer the question.\n4. An extra step that is dropped.",
      "Answer: north, south and east",
      "Answer: south gate",
      "Answer: south gate",
      "Answer: B",
    ],
  },
  {
    file: "map_reduce_options",
    scaffold: "map_reduce_options",
    settings: { chunks: 2 },
    systemPrompt: "soft",
    replies: ["I cannot split this.", "Answer: B", "Answer: B"],
  },
  {
    file: "invocation_chain-aggressive-bias",
    scaffold: "invocation_chain",
    settings: { intensity: "aggressive", property: "bias" },
    replies: ["Answer: B", "Answer: B", "Answer: C", "Answer: C"],
  },
  {
    file: "invocation_chain-minimal",
    scaffold: "invocation_chain",
    settings: { intensity: "minimal", property: "misconception" },
    replies: ["Answer: B", "Answer: B", "Answer: B", "Answer: B"],
  },
  {
    file: "invocation_chain-passthrough",
    scaffold: "invocation_chain",
    settings: { intensity: "passthrough" },
    replies: ["Answer: B"],
  },
  {
    file: "adjudicated",
    scaffold: "adjudicated",
    settings: {},
    systemPrompt: "strict",
    replies: ["Answer: B", "That relies on a stereotype.\nAnswer: C", "The evidence supports B.\nAnswer: B"],
  },
];

function renderMessages(messages: ChatMessage[]): string {
  return messages.map((m) => `--- ${m.role}\n${m.content}`).join("\n");
}

/** Runs a case and renders its transcript as readable text. */
async function transcript(c: Case): Promise<string> {
  const condition: Condition = { scaffold: { name: c.scaffold, ...c.settings }, format: "mc" };
  const provider = new ScriptedProvider(c.replies);
  const out: string[] = [];
  let n = 0;
  const call: ScaffoldCall = async (role, messages, params) => {
    const result = await provider.generate({ model: "scripted", messages, params: params ?? {} });
    out.push(
      `=== call ${++n}: ${role} ${JSON.stringify(params ?? {})}\n${renderMessages(messages)}\n--- reply\n${result.text}`,
    );
    return result;
  };
  const withSystem = c.systemPrompt ? { ...condition, system_prompt: c.systemPrompt } : condition;
  const run = await scaffolds.get(c.scaffold).run({ task: task(withSystem), params: {}, call }, c.settings);
  out.push(`=== final text\n${run.finalText}`);
  return `${out.join("\n\n")}\n`;
}

describe("golden transcripts", () => {
  for (const c of CASES) {
    test(`${c.file}: the prompts sent match tests/fixtures/transcripts/${c.file}.txt`, async () => {
      const actual = await transcript(c);
      const path = join(FIXTURES, `${c.file}.txt`);
      if (UPDATE || !existsSync(path)) {
        assert.ok(UPDATE, `missing ${path}: run with PARALLAX_UPDATE_TRANSCRIPTS=1 to create it`);
        mkdirSync(FIXTURES, { recursive: true });
        writeFileSync(path, actual);
        return;
      }
      assert.equal(actual, readFileSync(path, "utf8"));
    });
  }
});
