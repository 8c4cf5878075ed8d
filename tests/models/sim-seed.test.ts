/**
 * The simulated panel's draws (issue 11): attempts of a stochastic setting are independent
 * draws, greedy decoding repeats itself, and the study-level `seed` of the spec makes a run
 * reproducible bit for bit (another seed is another run).
 */
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, test } from "node:test";
import type { Item } from "../../src/contracts/item.js";
import type { ModelSpec } from "../../src/contracts/spec.js";
import { simProvider } from "../../src/models/sim/provider.js";
import { exportTable } from "../../src/run/export/export.js";
import { runStudy } from "../../src/run/execute/run-study.js";
import { openStore } from "../../src/run/store/open.js";
import { demoSpecYaml } from "../helpers/study.js";

const ITEMS: Item[] = Array.from({ length: 40 }, (_, i) => ({
  id: `q${i}`,
  benchmark: "b",
  stem: `Which of the listed boxes holds the marble in puzzle number ${i}?`,
  options: ["The red box", "The green box", "The blue box", "The white box"],
  goldIndex: i % 4,
  metadata: {},
}));
const SPEC = { id: "sim-medium", provider: "sim", model: "medium" } as ModelSpec;

function prompt(item: Item): string {
  const options = item.options!.map((o, k) => `${"ABCD"[k]}. ${o}`).join("\n");
  return `Question: ${item.stem}\n\n${options}\n\nEnd with a line 'Answer: X'.`;
}

/** Each item's reply per attempt, from one provider built with this study seed. */
async function replies(temperature: number, attempts: number, studySeed = 0): Promise<string[][]> {
  const provider = simProvider(SPEC, {}, { studySeed });
  provider.observeItems?.(ITEMS);
  const out: string[][] = [];
  for (const item of ITEMS) {
    const row: string[] = [];
    for (let attempt = 1; attempt <= attempts; attempt++) {
      const result = await provider.generate({
        model: "medium",
        messages: [{ role: "user", content: prompt(item) }],
        params: { temperature },
        attempt,
      });
      row.push(result.text);
    }
    out.push(row);
  }
  return out;
}

describe("sim draws: attempts and seeds", () => {
  test("attempts of a stochastic setting are independent draws; greedy attempts repeat", async () => {
    const sampled = await replies(0.7, 2);
    const differing = sampled.filter(([a, b]) => a !== b).length;
    // medium (ability 0.5) is right about 60% of the time on these items: two independent draws
    // disagree on a good share of them (the old behaviour repeated attempt 1 on every item).
    assert.ok(differing >= 5, `only ${differing} of ${ITEMS.length} items differ between attempts`);
    const greedy = await replies(0, 2);
    assert.ok(
      greedy.every(([a, b]) => a === b),
      "at temperature 0 the respondent is greedy",
    );
    // The same attempt is the same draw in a fresh provider: independence is not randomness.
    assert.deepEqual(await replies(0.7, 2), sampled);
  });

  test("the study seed enters every draw", async () => {
    const a = await replies(0, 1, 1);
    const b = await replies(0, 1, 2);
    assert.deepEqual(await replies(0, 1, 1), a);
    assert.ok(
      a.some((r, i) => r[0] !== b[i][0]),
      "another study seed gives another panel",
    );
  });

  test("the same spec seed reproduces a run bit for bit; another seed differs", async () => {
    const dir = mkdtempSync(join(tmpdir(), "parallax-sim-seed-"));
    const models = `  - id: sim-a
    provider: sim
    model: medium
    params: { temperature: 0.8 }`;
    const spec = (seed: number) =>
      demoSpecYaml({ items: 12, attempts: 2, models, execution: "  concurrency: 4" }).replace(
        /^seed: 3$/m,
        `seed: ${seed}`,
      );
    const run = async (name: string, seed: number) => {
      const specPath = join(dir, `${name}.yaml`);
      writeFileSync(specPath, spec(seed));
      const outDir = join(dir, name);
      await runStudy({ specPath, outDir, env: {} });
      return exported(outDir);
    };
    const first = await run("first", 11);
    const second = await run("second", 11);
    const other = await run("other", 12);
    assert.equal(first.trials.length, 48);
    assert.deepEqual(second.trials, first.trials, "same seed: the same trials");
    assert.deepEqual(second.calls, first.calls, "same seed: the same calls");
    const outcomes = (rows: Record<string, unknown>[]) => rows.map((r) => `${r.trial_id} ${r.parsed_answer}`);
    assert.notDeepEqual(outcomes(other.trials), outcomes(first.trials), "another seed: other answers");
    // Attempts 1 and 2 of the same cell and item are separate draws.
    const byCell = new Map<string, string[]>();
    for (const r of first.trials) {
      const key = `${r.item_id} ${r.condition_hash}`;
      byCell.set(key, [...(byCell.get(key) ?? []), String(r.parsed_answer)]);
    }
    assert.ok(
      [...byCell.values()].some(([a, b]) => a !== b),
      "some attempt 2 differs from its attempt 1",
    );
  });
});

/** The trials and calls exports without their timing fields, sorted by trial id. */
async function exported(outDir: string) {
  const store = await openStore(outDir);
  try {
    const run = (await store.getRun())!;
    const facets = Object.keys(run.spec.conditions.facets);
    const read = async (table: "trials" | "calls") => {
      const lines: string[] = [];
      await exportTable(store, { runId: run.id, facets, table, format: "jsonl" }, (chunk) => lines.push(chunk));
      return lines
        .join("")
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .map(({ latency_ms: _l, working_seconds: _w, started_at: _s, ...rest }) => rest)
        .sort((a, b) => `${a.trial_id}${a.seq ?? ""}`.localeCompare(`${b.trial_id}${b.seq ?? ""}`));
    };
    return { trials: await read("trials"), calls: await read("calls") };
  } finally {
    await store.close();
  }
}
