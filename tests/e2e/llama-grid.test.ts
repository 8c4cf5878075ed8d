/**
 * The SafetyRepro grid on real llama.cpp (issue 13): stories260K in F32, F16 and Q8_0 as the
 * `quantization` axis, two templates, greedy and a seeded sampling setting, both scoring paths.
 * Every cell runs; each trial records the SHA-256 of the weights that answered (one per precision,
 * all different); the log-prob scores of F32 and Q8_0 differ. One thread, a few items.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { sharedModel, skipReason } from "../helpers/llama-model.js";
import { describeNeeding, it } from "../helpers/prerequisites.js";

const FILES = { F32: "stories260K.gguf", F16: "stories260K-f16.gguf", Q8_0: "stories260K-q8_0.gguf" };
const skip =
  Object.values(FILES)
    .map(skipReason)
    .find((r) => r !== false) ?? false;
const repoRoot = resolve(import.meta.dirname, "..", "..");

function specText(): string {
  const variants = Object.entries(FILES)
    .map(([name, file]) => `${name}: ${sharedModel(file)}`)
    .join(", ");
  return `study: llama-grid
seed: 1
models:
  - id: stories
    provider: llama
    model: ${sharedModel(FILES.F32)}
    params: { max_tokens: 6 }
    options: { context_size: 512, threads: 1 }
    quantizations: { ${variants} }
benchmarks:
  - id: demo
    loader: inline
    items:
      - { id: d1, stem: "Where did the little cat sleep?", options: [on the bed, in the box], gold_index: 0 }
      - { id: d2, stem: "What did Lily find in the garden?", options: [a red ball, a blue bird], gold_index: 1 }
conditions:
  facets:
    quantization: [F32, F16, Q8_0]
    template: [T1, T3]
    decoding: [greedy, { name: moderate, seeds: [1, 2] }]
    scoring_path: [free_form, logprob]
  exclude:
    - { scoring_path: logprob, decoding: moderate }
`;
}

describeNeeding(skip, "the grid on llama.cpp (stories260K F32/F16/Q8_0)", () => {
  it("runs every precision, template, seed and scoring path, records the weights hash, and log-prob scores move with precision", () => {
    const dir = mkdtempSync(join(tmpdir(), "parallax-llama-grid-"));
    writeFileSync(join(dir, "study.yaml"), specText());
    const cli = ["--import", "tsx", join(repoRoot, "src", "cli", "main.ts")];
    const out = join(dir, "out");
    execFileSync(process.execPath, [...cli, "run", join(dir, "study.yaml"), "--out", out], { stdio: "pipe" });
    const trials = JSON.parse(
      `[${execFileSync(process.execPath, [...cli, "export", out, "--format", "jsonl"], { encoding: "utf8" })
        .trim()
        .split("\n")
        .join(",")}]`,
    ) as Record<string, string | number | null>[];
    // 3 precisions x 2 templates x (greedy + 2 seeds free-form, greedy log-prob) x 2 items.
    assert.equal(trials.length, 3 * 2 * 4 * 2);
    assert.ok(
      trials.every((t) => t.status === "finished"),
      "every trial finished",
    );
    assert.deepEqual([...new Set(trials.map((t) => String(t.decoding_seed ?? "none")))].sort(), ["1", "2", "none"]);
    const revisions = new Map<string, Set<unknown>>();
    for (const t of trials) {
      const set = revisions.get(String(t.quantization)) ?? new Set();
      revisions.set(String(t.quantization), set.add(t.model_revision));
    }
    for (const [q, set] of revisions) {
      assert.equal(set.size, 1, `one weights hash for ${q}`);
      assert.match(String([...set][0]), /^sha256:[0-9a-f]{64}$/);
    }
    assert.equal(new Set([...revisions.values()].map((s) => [...s][0])).size, 3, "the hash differs per precision");
    // The log-prob path's raw log-likelihoods, per precision, for the same item and template.
    const calls = execFileSync(process.execPath, [...cli, "export", out, "--table", "calls", "--format", "jsonl"], {
      encoding: "utf8",
    })
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { trial_id: string; role: string; note: unknown });
    const quantOf = new Map(trials.map((t) => [String(t.trial_id), `${t.quantization}|${t.item_id}|${t.template}`]));
    const logprobs = new Map<string, string>();
    for (const call of calls.filter((c) => c.role === "logprob")) {
      const note = typeof call.note === "string" ? JSON.parse(call.note) : call.note;
      logprobs.set(
        quantOf.get(call.trial_id)!,
        JSON.stringify(note.logprob.continuations.map((c: { tokens: unknown }) => c.tokens)),
      );
    }
    assert.equal(logprobs.size, 3 * 2 * 2);
    for (const key of ["d1|T1", "d1|T3", "d2|T1", "d2|T3"]) {
      assert.notEqual(logprobs.get(`F32|${key}`), logprobs.get(`Q8_0|${key}`), `F32 vs Q8_0 on ${key}`);
    }
  });
});
