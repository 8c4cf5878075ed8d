/**
 * Golden transcripts of the agent scaffolds (GAIA App. C): a scripted provider that answers with
 * tool calls, the real sandboxed toolbox (an attachment copied in), and the exact prompts, offered
 * tools, tool calls and observations compared with tests/fixtures/transcripts/<scaffold>.txt.
 * Regenerate on purpose with PARALLAX_UPDATE_TRANSCRIPTS=1 node scripts/test.mjs scaffolds/agent-golden
 */
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type {
  Capability,
  ChatMessage,
  GenerateRequest,
  GenerateResult,
  Provider,
  ToolCall,
} from "../../src/contracts/provider.js";
import { PAR_ACTOR_PROMPT, PAR_PLANNER_PROMPT, PAR_RATER_PROMPT } from "../../src/scaffolds/planner-actor-rater.js";
import { S3_EXECUTOR_PROMPT, S3_PLANNER_PROMPT } from "../../src/scaffolds/planner-executor.js";
import { type AgentStep, agentTask, runAgentScaffold } from "../helpers/agent-harness.js";
import { after, describeNeeding, needsBubblewrap, test } from "../helpers/prerequisites.js";

const FIXTURES = resolve(dirname(fileURLToPath(import.meta.url)), "..", "fixtures", "transcripts");
const PAPER = "/work/shared/papers/gaia-scaffold-comparison.txt";
const UPDATE = process.env.PARALLAX_UPDATE_TRANSCRIPTS === "1";

type Reply = string | { text?: string; calls: Array<[string, Record<string, unknown>]> };

/** Returns its replies in order (text, or tool calls with ids call_1, call_2, ...); fails when it runs out. */
class ScriptedAgent implements Provider {
  readonly name = "scripted";
  readonly simulated = true;
  private next = 0;
  private ids = 0;
  constructor(private readonly replies: Reply[]) {}
  capabilities(): ReadonlySet<Capability> {
    return new Set(["generate", "system_prompt", "tools"]);
  }
  async generate(request: GenerateRequest): Promise<GenerateResult> {
    const reply = this.replies[this.next++];
    if (reply === undefined) throw new Error(`scripted agent ran out of replies at call ${this.next}`);
    const base = { usage: { inputTokens: 0, outputTokens: 0 }, paramsUsed: request.params, droppedParams: [] };
    if (typeof reply === "string") return { text: reply, ...base };
    const toolCalls: ToolCall[] = reply.calls.map(([name, args]) => ({
      id: `call_${++this.ids}`,
      name,
      arguments: JSON.stringify(args),
    }));
    return { text: reply.text ?? "", toolCalls, ...base };
  }
}

const dir = mkdtempSync(join(tmpdir(), "parallax-agent-golden-"));
const CSV = join(dir, "orders.csv");
writeFileSync(CSV, "order,boxes\nA-1,12\nA-2,30\nA-3,5\n");
after(() => rmSync(dir, { recursive: true, force: true }));

const TASK = agentTask("The attached file orders.csv lists orders. How many boxes were ordered in total?");

interface Case {
  scaffold: string;
  settings?: Record<string, number>;
  replies: Reply[];
}

const CASES: Case[] = [
  {
    scaffold: "agent_react",
    replies: [
      "I will read the file first.",
      {
        text: "Summing the second column.",
        calls: [["bash", { cmd: "tail -n +2 orders.csv | cut -d, -f2 | paste -sd+ | bc" }]],
      },
      { calls: [["bash", { cmd: "cat missing.csv" }]] },
      { calls: [["submit_answer", { answer: "47" }]] },
    ],
  },
  {
    scaffold: "planner_actor_rater",
    settings: { max_rounds: 2 },
    replies: [
      "- read orders.csv\n- sum the boxes column",
      { calls: [["python", { code: "print(12 + 30)" }]] },
      { calls: [["submit_answer", { answer: "42" }]] },
      { calls: [["submit_verdict", { done: false, reason: "the third order is missing" }]] },
      "- add the third order to the sum",
      {
        calls: [
          ["python", { code: "import csv\nprint(sum(int(r['boxes']) for r in csv.DictReader(open('orders.csv'))))" }],
        ],
      },
      { calls: [["submit_answer", { answer: "47" }]] },
      { calls: [["submit_verdict", { done: true, reason: "" }]] },
    ],
  },
  {
    scaffold: "planner_executor",
    replies: [
      "- open orders.csv\n- add up the boxes column\n- answer with the bare number",
      { calls: [["text_editor", { command: "view", path: "orders.csv" }]] },
      { calls: [["submit_answer", { answer: "47" }]] },
    ],
  },
];

function renderMessage(m: ChatMessage): string {
  const calls = (m.toolCalls ?? []).map((c) => `\n[tool call ${c.id}] ${c.name} ${c.arguments}`).join("");
  const id = m.toolCallId ? ` (${m.toolCallId})` : "";
  return `--- ${m.role}${id}\n${m.content}${calls}`;
}

function renderStep(step: AgentStep, n: number): string {
  if (step.kind === "tool") {
    const { call, result } = step;
    const error = result.error === undefined ? "" : `\n[error] ${result.error}`;
    return `=== ${n}: tool ${call.name} for ${step.caller} ${call.arguments}\n${result.output}${error}`;
  }
  const calls = step.toolCalls.map((c) => `\n[tool call] ${c.name} ${c.arguments}`).join("");
  return `=== ${n}: ${step.role} (tools: ${step.tools.join(", ") || "none"})\n${step.messages.map(renderMessage).join("\n")}\n--- reply\n${step.text}${calls}`;
}

describeNeeding(needsBubblewrap(), "agent golden transcripts", () => {
  for (const c of CASES) {
    test(`${c.scaffold}: prompts, tools and observations match tests/fixtures/transcripts/${c.scaffold}.txt`, async () => {
      const run = await runAgentScaffold({
        scaffold: c.scaffold,
        provider: new ScriptedAgent(c.replies),
        model: "scripted",
        task: TASK,
        settings: c.settings,
        attachments: [CSV],
      });
      const actual = `${run.steps.map((s, i) => renderStep(s, i + 1)).join("\n\n")}\n\n=== final text\n${run.finalText}\n`;
      const path = join(FIXTURES, `${c.scaffold}.txt`);
      if (UPDATE || !existsSync(path)) {
        assert.ok(UPDATE, `missing ${path}: run with PARALLAX_UPDATE_TRANSCRIPTS=1 to create it`);
        writeFileSync(path, actual);
        return;
      }
      assert.equal(actual, readFileSync(path, "utf8"));
    });
  }

  test("the S2 and S3 prompts are the paper's App. C text, word for word", (t) => {
    if (!existsSync(PAPER)) return t.skip(`${PAPER} is absent`);
    const paper = readFileSync(PAPER, "utf8").replace(/\s+/g, " ");
    for (const prompt of [
      PAR_PLANNER_PROMPT,
      PAR_ACTOR_PROMPT,
      PAR_RATER_PROMPT,
      S3_PLANNER_PROMPT,
      S3_EXECUTOR_PROMPT,
    ]) {
      assert.ok(paper.includes(prompt), `not in App. C: ${prompt.slice(0, 60)}...`);
    }
  });
});
