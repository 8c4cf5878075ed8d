/**
 * A large study written straight into a SQLite store (no model runs): the store is created and
 * migrated by `openStore`, the run saved through it, then the trials and their calls inserted
 * with prepared statements in one transaction, so 100k trials take a second or two. Every
 * trial's attributes come from `plantedTrial(i)`, which the tests also call to compute what a
 * filter or a search must return.
 */
import { createHash } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import type { Condition } from "../../src/contracts/condition.js";
import type { Item } from "../../src/contracts/item.js";
import { canonicalJson, conditionHash, hashValue, trialId } from "../../src/core/hash.js";
import { parseSpec } from "../../src/core/spec-loader.js";
import { openStore } from "../../src/run/store/open.js";

export const HOSTILE_OUTPUT =
  '<script>window.__pwned = 1; alert("pwned")</script><img src=x onerror="window.__pwned = 2; alert(2)">Answer: B';

export const RUN_ID = "viewer-fixture-1";
export const MODELS = ["sim-a", "sim-b"] as const;
export const SCAFFOLDS = ["direct", "map_reduce"] as const;
export const PERTURBATIONS = ["none", "case_change"] as const;
export const ITEMS_PER_CELL_DIVISOR = MODELS.length * SCAFFOLDS.length * PERTURBATIONS.length;

const SPEC = `study: viewer-fixture
models:
  - { id: sim-a, provider: sim, model: medium }
  - { id: sim-b, provider: sim, model: strong }
benchmarks:
  - id: demo
    loader: inline
    items:
      - { id: q0, stem: "Which colour is the sky on a clear day?", options: [blue, green], gold_index: 0 }
conditions:
  facets:
    scaffold: [direct, map_reduce]
    perturbation: [none, case_change]
`;

export interface PlantedTrial {
  index: number;
  id: string;
  model: string;
  scaffold: string;
  perturbation: string;
  item: string;
  status: "finished" | "errored";
  score: number | null;
  parseStatus: "ok" | "failed" | null;
  failureBucket: string | null;
  /** Whether the answer call's options_reached check failed. */
  optionsLost: boolean;
  response: string;
  question: string;
  hostile: boolean;
}

/** Trial i: the grid cycles fastest over perturbation, then scaffold, then model; items follow. */
export function plantedTrial(i: number, hostileEvery = 0): PlantedTrial {
  const perturbation = PERTURBATIONS[i % 2];
  const scaffold = SCAFFOLDS[Math.floor(i / 2) % 2];
  const model = MODELS[Math.floor(i / 4) % 2];
  const item = `q${Math.floor(i / ITEMS_PER_CELL_DIVISOR)}`;
  const errored = i % 97 === 5;
  const parseFailed = !errored && i % 11 === 3;
  const score = errored || parseFailed ? null : i % 3 === 0 ? 0 : 1;
  const hostile = hostileEvery > 0 && i % hostileEvery === 1;
  const base = `Question ${item}: which colour is the sky on a clear day?`;
  const question = perturbation === "case_change" ? base.toUpperCase() : base;
  const marker = `marker${i}`;
  const response = hostile
    ? HOSTILE_OUTPUT
    : errored
      ? ""
      : `Reasoning ${marker} about ${item}.\n${parseFailed ? "No idea." : `Answer: ${score === 1 ? "A" : "B"}`}`;
  return {
    index: i,
    id: "",
    model,
    scaffold,
    perturbation,
    item,
    status: errored ? "errored" : "finished",
    score,
    parseStatus: errored ? null : parseFailed ? "failed" : "ok",
    failureBucket: errored ? "rate_limit" : null,
    optionsLost: scaffold === "map_reduce" && i % 5 === 0,
    response,
    question,
    hostile,
  };
}

export function conditionOf(t: Pick<PlantedTrial, "scaffold" | "perturbation">): Condition {
  return { scaffold: t.scaffold, perturbation: t.perturbation };
}

export function plantedTrialId(t: PlantedTrial): string {
  return trialId({
    modelId: t.model,
    conditionHash: conditionHash(conditionOf(t)),
    benchmarkId: "demo",
    itemId: t.item,
    attempt: 1,
  });
}

/** A planted item: the unperturbed question of its trials, blue the gold option. */
function itemOf(id: string): Item {
  const stem = `Question ${id}: which colour is the sky on a clear day?`;
  return { id, benchmark: "demo", stem, options: ["blue", "green"], goldIndex: 0, metadata: {} };
}

function taskOf(t: PlantedTrial) {
  return {
    itemId: t.item,
    benchmark: "demo",
    format: "mc",
    question: t.question,
    options: t.perturbation === "case_change" ? ["BLUE", "GREEN"] : ["blue", "green"],
    validLetters: ["A", "B"],
    answerInstruction: "End with 'Answer: X'.",
    condition: conditionOf(t),
    ...(t.perturbation === "case_change"
      ? {
          perturbation: {
            value: "case_change",
            perturbation: "case_change",
            family: "format",
            seed: 0,
            variant: 0,
            status: "applied",
            changed: ["stem", "options"],
            note: "upper case",
          },
        }
      : {}),
  };
}

/** Writes `count` trials (one call each) into a new study directory; returns it and the planted trials. */
export async function writeLargeStudy(
  count: number,
  hostileEvery = 0,
): Promise<{ dir: string; trials: PlantedTrial[] }> {
  const dir = mkdtempSync(join(tmpdir(), "parallax-viewer-"));
  const spec = parseSpec(SPEC, "fixture.yaml");
  const trials = Array.from({ length: count }, (_, i) => {
    const t = plantedTrial(i, hostileEvery);
    t.id = plantedTrialId(t);
    return t;
  });
  const store = await openStore(dir);
  try {
    await store.saveRun({
      id: RUN_ID,
      study: spec.study,
      specHash: hashValue(spec),
      manifestHash: "none",
      spec,
      createdAt: "2026-01-01T00:00:00.000Z",
      parallaxVersion: "test",
    });
    // The run's items, as `parallax run` stores them (the analysis reads them from the store).
    await store.saveRunItems(RUN_ID, [...new Set(trials.map((t) => t.item))].map(itemOf));
  } finally {
    await store.close();
  }
  insertTrials(join(dir, "parallax.db"), trials);
  return { dir, trials };
}

function insertTrials(file: string, trials: PlantedTrial[]): void {
  const db = new Database(file);
  // A throwaway test store: no durability needed, a large page cache, and rows in key order.
  db.pragma("synchronous = OFF");
  db.pragma("cache_size = -262144");
  const ordered = [...trials].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  // Secondary indexes are rebuilt after the load (one sort each), as the migrations defined them.
  const indexes = db
    .prepare("select sql from sqlite_master where type = 'index' and tbl_name = 'trials' and sql is not null")
    .pluck()
    .all() as string[];
  for (const sql of indexes) db.exec(`drop index ${/create index "?(\w+)"?/i.exec(sql)![1]}`);
  try {
    const trial =
      db.prepare(`insert into trials (id, run_id, model_id, benchmark_id, item_id, condition_hash, condition,
      attempt, status, executions, final_answer, parsed_answer, parse_status, score, scorer, failure_bucket, error_message,
      input_tokens, output_tokens, cost_usd, latency_ms, dropped_params, simulated, updated_at, task_hash)
      values (?, ?, ?, 'demo', ?, ?, ?, 1, ?, 1, ?, ?, ?, ?, 'mc_last_answer', ?, ?, 10, 5, 0.0001, 12, '[]', 1, ?, ?)`);
    const call = db.prepare(`insert into calls (trial_id, execution, seq, role, messages, params_used, dropped_params,
      response_text, finish_reason, input_tokens, output_tokens, cost_usd, latency_ms, cached, error_bucket, error_message,
      started_at, checks) values (?, 1, 1, ?, ?, '{"temperature":0}', '["seed"]', ?, 'stop', 10, 5, 0.0001, 12, ?, ?, ?,
      '2026-01-01T00:00:01.000Z', ?)`);
    const task = db.prepare("insert or ignore into tasks (hash, task) values (?, ?)");
    const conditionHashes = new Map<string, string>();
    db.transaction(() => {
      for (const t of ordered) {
        const condition = conditionOf(t);
        const key = JSON.stringify(condition);
        if (!conditionHashes.has(key)) conditionHashes.set(key, conditionHash(condition));
        const taskJson = canonicalJson(taskOf(t));
        const taskHash = createHash("sha256").update(taskJson).digest("hex");
        task.run(taskHash, taskJson);
        const errored = t.status === "errored";
        trial.run(
          t.id,
          RUN_ID,
          t.model,
          t.item,
          conditionHashes.get(key),
          key,
          t.status,
          errored ? null : t.response,
          t.score === null ? null : t.score === 1 ? "A" : "B",
          t.parseStatus,
          t.score,
          t.failureBucket,
          errored ? "429 Too Many Requests" : null,
          `2026-01-01T00:00:${String(t.index % 60).padStart(2, "0")}.000Z`,
          taskHash,
        );
        const messages = [
          { role: "system", content: "Answer with the letter of the correct option." },
          { role: "user", content: `${t.question} (A) blue (B) green` },
        ];
        call.run(
          t.id,
          t.scaffold === "map_reduce" ? "map-1" : "answer",
          JSON.stringify(messages),
          errored ? null : t.response,
          t.index % 7 === 0 ? 1 : 0,
          errored ? "rate_limit" : null,
          errored ? "429 Too Many Requests" : null,
          JSON.stringify({ options_reached: !t.optionsLost, system_prompt_retained: 1 }),
        );
      }
    })();
    for (const sql of indexes) db.exec(sql);
  } finally {
    db.close();
  }
}
