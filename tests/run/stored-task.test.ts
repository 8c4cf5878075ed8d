/**
 * What was sent is stored once (issue #8 item 3): each finished trial's rendered task is stored
 * with its completion, rescoring reads that stored task, a study whose rendering changed since
 * the run is refused (exit 2) unless re-rendering is asked for, and trials stored before the
 * migration are re-rendered and counted.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { before, describe, test } from "node:test";
import Database from "better-sqlite3";
import type { Condition } from "../../src/contracts/condition.js";
import type { Item } from "../../src/contracts/item.js";
import type { TaskInput } from "../../src/contracts/task.js";
import { renderTrialTask } from "../../src/facets/render.js";
import { runStudy } from "../../src/run/execute/run-study.js";
import { openScoringContext, rescoreStudy, type ScoringContext } from "../../src/run/score/index.js";
import { taskHash } from "../../src/run/execute/task-record.js";
import { scorers } from "../../src/scoring/registry.js";
import { writeDemoSpec } from "../helpers/study.js";

/** A scorer that records the question of every task it is handed. */
const seenQuestions: string[] = [];
scorers.register("test_seen_task", {
  name: "test_seen_task",
  version: "1",
  score: (_item, task) => {
    seenQuestions.push(task.question);
    return { parsedAnswer: null, parseStatus: "ok", score: 1 };
  },
});

/** Today's rendering with a changed prompt constant: another answer instruction. */
function changedRender(item: Item, condition: Condition): TaskInput {
  const task = renderTrialTask(item, condition);
  return { ...task, answerInstruction: `${task.answerInstruction} Think twice.` };
}

async function withContext<T>(outDir: string, fn: (context: ScoringContext) => Promise<T>): Promise<T> {
  const context = await openScoringContext(outDir);
  try {
    return await fn(context);
  } finally {
    await context.store.close();
  }
}

describe("the stored task", () => {
  let outDir: string;

  before(async () => {
    const demo = writeDemoSpec({ items: 4, facets: "    format: [mc, oe]" });
    outDir = demo.outDir;
    const run = await runStudy({ specPath: demo.specPath, outDir, env: {} });
    assert.equal(run.counts.finished, 8);
  });

  test("each finished trial stores the task it was sent, once per distinct task", async () => {
    await withContext(outDir, async ({ store, run, study }) => {
      const trials = await store.listTrials(run.id);
      const tasks = await store.getTasks(trials.map((t) => t.taskHash!));
      assert.equal(tasks.size, 8);
      for (const trial of trials) {
        const item = study.items.get(trial.benchmarkId)!.get(trial.itemId)!;
        const rendered = renderTrialTask(item, trial.condition);
        assert.equal(trial.taskHash, taskHash(rendered));
        assert.deepEqual(tasks.get(trial.taskHash!), JSON.parse(JSON.stringify(rendered)));
        // The first call's user message is that task, as the model received it.
        const [call] = await store.listCalls(run.id, trial.id);
        assert.ok(
          call.messages.some((m) => m.content.includes(rendered.question)),
          "expected call.messages.some((m) => m.content.includes(rendered.question))",
        );
      }
    });
  });

  test("a changed prompt constant is refused with exit 2, naming the count and --rerender", async () => {
    await withContext(outDir, async (context) => {
      await assert.rejects(
        rescoreStudy({ ...context, render: changedRender }),
        (error: Error & { exitCode?: number }) => {
          assert.equal(error.exitCode, 2);
          assert.match(error.message, /8 of 8 finished trial\(s\)/);
          assert.match(error.message, /--rerender/);
          return true;
        },
      );
      assert.deepEqual(await context.store.listScores(context.run.id), [], "nothing scored before the refusal");
    });
  });

  test("rescoring reads what was sent, not today's rendering; --rerender scores today's", async () => {
    // Mark the stored tasks (their hashes stay, so today's rendering still matches them); a task
    // written back as plain JSON is read as it is.
    const db = new Database(join(outDir, "parallax.db"));
    try {
      const rows = db.prepare("select hash from tasks").all() as { hash: string }[];
      const tasks = await withContext(outDir, (context) => context.store.getTasks(rows.map((r) => r.hash)));
      for (const row of rows) {
        const task = tasks.get(row.hash) as TaskInput;
        db.prepare("update tasks set task = ? where hash = ?").run(
          JSON.stringify({ ...task, question: `SENT ${task.question}` }),
          row.hash,
        );
      }
    } finally {
      db.close();
    }
    await withContext(outDir, async (context) => {
      seenQuestions.length = 0;
      const stored = await rescoreStudy(context, { scorer: "test_seen_task" });
      assert.equal(stored.scored, 8);
      assert.equal(stored.rerendered, 0);
      assert.equal(seenQuestions.length, 8);
      assert.ok(
        seenQuestions.every((q) => q.startsWith("SENT ")),
        "the stored task was scored",
      );

      seenQuestions.length = 0;
      const rerendered = await rescoreStudy(
        { ...context, render: changedRender },
        { scorer: "test_seen_task", rerender: true },
      );
      assert.equal(rerendered.rerendered, 8);
      assert.ok(
        seenQuestions.every((q) => !q.startsWith("SENT ")),
        "today's rendering was scored",
      );
    });
  });

  test("trials stored before tasks were recorded are re-rendered and counted", async () => {
    const db = new Database(join(outDir, "parallax.db"));
    try {
      db.prepare("update trials set task_hash = null").run();
    } finally {
      db.close();
    }
    await withContext(outDir, async (context) => {
      const result = await rescoreStudy({ ...context, render: changedRender });
      assert.equal(result.unrecordedTasks, 8);
      assert.equal(result.rerendered, 0);
      assert.equal(result.scored, 8);
    });
  });
});
