/**
 * Each scaffold's defining property, asserted on the messages it sends (what reaches which call),
 * independently of the golden transcripts (which are written from the implementation's own output
 * and only guard against change). The task carries distinctive marker strings (system prompt,
 * benchmark instructions, question, options), so each assertion is a plain search of the messages.
 * No system-prompt facet is set: the task's own system prompt must reach the calls that answer
 * the task, whichever layer renders it.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import type { Condition } from "../../src/contracts/condition.js";
import type { ChatMessage } from "../../src/contracts/provider.js";
import type { TaskInput } from "../../src/contracts/task.js";
import { scaffolds } from "../../src/scaffolds/registry.js";
import type { ScaffoldCall, ScaffoldSettings } from "../../src/scaffolds/types.js";

const SYSTEM = "SYSTEM-MARKER: you are a careful assistant.";
const INSTRUCTIONS = "INSTRUCTIONS-MARKER: answer without stereotypes.";
const QUESTION = "QUESTION-MARKER: through which gate does the red courier leave?";
const OPTIONS = ["OPTION-NORTH gate", "OPTION-SOUTH gate", "OPTION-EAST gate"];
const LETTERS = ["A", "B", "C"];
const ANSWER_INSTRUCTION = 'ANSWER-FORMAT-MARKER: end with "Answer: X".';

function task(scaffold: string, settings: ScaffoldSettings): TaskInput {
  const condition: Condition = { scaffold: { name: scaffold, ...settings }, format: "mc" };
  return {
    itemId: "gate-1",
    benchmark: "props",
    format: "mc",
    question: QUESTION,
    options: OPTIONS,
    validLetters: LETTERS,
    answerInstruction: ANSWER_INSTRUCTION,
    benchmarkInstructions: INSTRUCTIONS,
    systemPrompt: SYSTEM,
    condition,
  };
}

interface Sent {
  role: string;
  messages: ChatMessage[];
  reply: string;
}

/** Runs a scaffold with a replier (role, index of the call) -> reply text; returns what was sent. */
async function run(
  scaffold: string,
  settings: ScaffoldSettings,
  reply: (role: string, index: number) => string,
): Promise<{ sent: Sent[]; finalText: string }> {
  const sent: Sent[] = [];
  const call: ScaffoldCall = async (role, messages, params) => {
    const text = reply(role, sent.length);
    sent.push({ role, messages: messages.map((m) => ({ ...m })), reply: text });
    return { text, usage: { inputTokens: 0, outputTokens: 0 }, paramsUsed: params ?? {}, droppedParams: [] };
  };
  const result = await scaffolds.get(scaffold).run({ task: task(scaffold, settings), params: {}, call }, settings);
  return { sent, finalText: result.finalText };
}

const text = (s: Sent) => s.messages.map((m) => m.content).join("\n");
const systemOf = (s: Sent) => s.messages.filter((m) => m.role === "system").map((m) => m.content);
const lastUser = (s: Sent) => [...s.messages].reverse().find((m) => m.role === "user")?.content ?? "";
const optionLines = OPTIONS.map((o, i) => `${LETTERS[i]}. ${o}`);

/** The whole task: its system prompt as the system message, and every part of the question. */
function assertWholeTask(s: Sent, what: string): void {
  assert.deepEqual(systemOf(s), [SYSTEM], `${what}: the task's system prompt is the system message`);
  for (const part of [INSTRUCTIONS, QUESTION, ANSWER_INSTRUCTION, ...optionLines]) {
    assert.ok(text(s).includes(part), `${what}: carries ${part}`);
  }
}

const finalLetter = (finalText: string) => [...finalText.matchAll(/^\s*answer\s*:\s*(\S+)/gim)].at(-1)?.[1];

describe("scaffold defining properties (what reaches which call)", () => {
  test("direct: one call carrying the whole task; its reply is the final text", async () => {
    const { sent, finalText } = await run("direct", {}, () => "Answer: B");
    assert.deepEqual(
      sent.map((s) => s.role),
      ["answer"],
    );
    assertWholeTask(sent[0], "direct");
    assert.equal(finalText, "Answer: B");
  });

  test("cot: one call whose user message is direct's with a reasoning request in front", async () => {
    const direct = await run("direct", {}, () => "Answer: B");
    const { sent } = await run("cot", {}, () => "thinking...\nAnswer: B");
    assert.equal(sent.length, 1);
    assertWholeTask(sent[0], "cot");
    const cotBody = lastUser(sent[0]);
    const directBody = lastUser(direct.sent[0]);
    assert.ok(cotBody.endsWith(directBody) && cotBody.length > directBody.length, "same task, a prefix added");
    assert.match(cotBody.slice(0, cotBody.length - directBody.length), /step by step|reason/i);
  });

  test("react: a growing conversation, each reply fed back, and a forced final call after max_iterations", async () => {
    const maxIterations = 3;
    const { sent, finalText } = await run("react", { max_iterations: maxIterations }, (role, i) =>
      role === "final" ? "Final Answer: C" : `Thought: step ${i}\nAction: Recall[gate ${i}]`,
    );
    assert.equal(sent.length, maxIterations + 1);
    assert.equal(sent.at(-1)!.role, "final");
    assertWholeTask(sent[0], "react step 1");
    for (let k = 1; k < sent.length; k++) {
      const before = sent[k - 1].messages;
      assert.deepEqual(sent[k].messages.slice(0, before.length), before, `call ${k + 1} extends call ${k}`);
      assert.deepEqual(sent[k].messages[before.length], { role: "assistant", content: sent[k - 1].reply });
    }
    assert.equal(finalLetter(finalText), "C");
    // A reply with an answer ends the loop at once.
    const early = await run("react", { max_iterations: maxIterations }, () => "Thought: easy\nFinal Answer: B");
    assert.equal(early.sent.length, 1);
    assert.equal(finalLetter(early.finalText), "B");
  });

  test("critic: the critic sees the draft and not the task's system prompt; a revision sees the critique", async () => {
    const replies: Record<string, string> = {
      answer: "Answer: A",
      "critique-1": "DRAFT-WEAKNESS: north is a guess.\nVerdict: REVISE",
      "revise-1": "Answer: B",
      "critique-2": "Fine.\nVerdict: APPROVE",
    };
    const { sent, finalText } = await run("critic", { rounds: 3 }, (role) => replies[role] ?? "Answer: C");
    assert.deepEqual(
      sent.map((s) => s.role),
      ["answer", "critique-1", "revise-1", "critique-2"],
      "stops at the first approval",
    );
    assertWholeTask(sent[0], "critic answer");
    const [answer, critique1, revise1, critique2] = sent;
    assert.ok(text(critique1).includes(answer.reply), "the critic sees the draft");
    assert.ok(text(critique1).includes(QUESTION), "and the question");
    assert.ok(!systemOf(critique1).includes(SYSTEM), "the critic has its own system prompt");
    assert.ok(text(revise1).includes("DRAFT-WEAKNESS"), "the revision sees the critique");
    assert.deepEqual(systemOf(revise1), [SYSTEM]);
    assert.ok(text(critique2).includes(revise1.reply), "the second critique reviews the revision");
    assert.equal(finalLetter(finalText), "B");
  });

  for (const [scaffold, preserves] of [
    ["map_reduce", false],
    ["map_reduce_options", true],
  ] as const) {
    test(`${scaffold}: each map call gets one sub-task ${preserves ? "WITH" : "WITHOUT"} the options; the reduce gets everything`, async () => {
      const subtasks = ["SUBTASK-ONE list the gates", "SUBTASK-TWO recall the colour code"];
      const { sent, finalText } = await run(scaffold, { chunks: 3 }, (role) =>
        role === "decompose"
          ? `Plan:\n1. ${subtasks[0]}\n2. ${subtasks[1]}`
          : role.startsWith("map-")
            ? `MAP-RESULT-${role}`
            : "Answer: B",
      );
      assert.deepEqual(
        sent.map((s) => s.role),
        ["decompose", ...subtasks.map((_, i) => `map-${i + 1}`), "reduce"],
      );
      const maps = sent.filter((s) => s.role.startsWith("map-"));
      assert.ok(!systemOf(sent[0]).includes(SYSTEM), "the decomposer has its own system prompt");
      for (const [i, map] of maps.entries()) {
        assert.ok(text(map).includes(subtasks[i]), `${map.role} gets its sub-task`);
        for (const [j, other] of subtasks.entries()) {
          if (j !== i) assert.ok(!text(map).includes(other), `${map.role} does not get sub-task ${j + 1}`);
        }
        for (const earlier of maps.slice(0, i)) assert.ok(!text(map).includes(earlier.reply), "maps are independent");
        assert.ok(!systemOf(map).includes(SYSTEM), `${map.role}: the task's system prompt stays with the reduce`);
        assert.ok(text(map).includes(INSTRUCTIONS), `${map.role}: the benchmark instructions reach it`);
        for (const option of OPTIONS) {
          assert.equal(text(map).includes(option), preserves, `${map.role} ${preserves ? "has" : "lacks"} ${option}`);
        }
      }
      const reduce = sent.at(-1)!;
      assertWholeTask(reduce, "reduce");
      for (const map of maps) assert.ok(text(reduce).includes(map.reply), `the reduce sees ${map.role}'s result`);
      assert.equal(finalLetter(finalText), "B");
    });
  }

  test("invocation_chain: four steps, each carrying the whole task and the previous step's answer", async () => {
    const { sent, finalText } = await run("invocation_chain", { intensity: "aggressive", property: "bias" }, (_, i) =>
      i === 3 ? "Answer: C" : `STEP-REPLY-${i + 1}\nAnswer: B`,
    );
    assert.equal(sent.length, 4);
    for (const [k, s] of sent.entries()) {
      assertWholeTask(s, s.role);
      if (k > 0) assert.ok(text(s).includes(sent[k - 1].reply), `${s.role} sees the previous answer`);
      for (const earlier of sent.slice(0, Math.max(0, k - 1))) {
        assert.ok(!text(s).includes(earlier.reply), `${s.role} sees only the previous step, not earlier ones`);
      }
    }
    assert.match(text(sent[1]) + text(sent[2]), /stereotype/i, "aggressive bias wording in the middle steps");
    assert.equal(finalLetter(finalText), "C");
    const passthrough = await run("invocation_chain", { intensity: "passthrough" }, () => "Answer: A");
    assert.equal(passthrough.sent.length, 1, "passthrough is a single direct call");
    assertWholeTask(passthrough.sent[0], "passthrough");
  });

  test("adjudicated: the checker sees the answer, the adjudicator sees both; only the answer call has the system prompt", async () => {
    const replies: Record<string, string> = {
      answer: "ANSWER-REPLY\nAnswer: B",
      check: "CHECK-REPLY relies on a stereotype.\nAnswer: C",
      adjudicate: "Weighed both.\nAnswer: A",
    };
    const { sent, finalText } = await run("adjudicated", {}, (role) => replies[role]);
    assert.deepEqual(
      sent.map((s) => s.role),
      ["answer", "check", "adjudicate"],
    );
    assertWholeTask(sent[0], "answer");
    const [, check, adjudicate] = sent;
    assert.ok(text(check).includes("ANSWER-REPLY"), "the checker sees the answer");
    assert.ok(text(check).includes(QUESTION), "the checker sees the question");
    assert.ok(
      text(adjudicate).includes("ANSWER-REPLY") && text(adjudicate).includes("CHECK-REPLY"),
      "the adjudicator sees both",
    );
    for (const s of [check, adjudicate])
      assert.ok(!systemOf(s).includes(SYSTEM), `${s.role} has its own system prompt`);
    assert.equal(finalLetter(finalText), "A");
  });

  test("every registered scaffold is covered here", () => {
    const covered = [
      "direct",
      "cot",
      "react",
      "critic",
      "map_reduce",
      "map_reduce_options",
      "invocation_chain",
      "adjudicated",
    ];
    // The agent scaffolds' defining properties (which role is offered which tools, what each call
    // carries) are pinned step by step by their golden transcripts (agent-golden.test.ts).
    const agents = ["agent_react", "planner_actor_rater", "planner_executor"];
    const transcript = (name: string) =>
      readFileSync(join(import.meta.dirname, "..", "fixtures", "transcripts", `${name}.txt`), "utf8");
    for (const name of agents) assert.match(transcript(name), /^=== 1: \w+ \(tools: /, name);
    assert.match(transcript("planner_executor"), /^=== 1: planner \(tools: none\)/, "S3's planner is offered no tools");
    assert.deepEqual([...scaffolds.names()].sort(), [...covered, ...agents].sort());
  });
});
