/**
 * The blinding protocol (ScaffoldSafety App. Q.2) end to end on a sim study of OR-Bench items
 * under three scaffolds, with scripted judges: the judge's input never contains the scaffold,
 * the model or the condition; the mapping is sealed before the first judge call and verifies;
 * tampering with the mapping or the verdicts is detected at unblinding; unblinding is logged
 * and only then are judge scores stored. Plus the pieces alone: sanitiser, seal, Bang's index.
 */
import assert from "node:assert/strict";
import Database from "better-sqlite3";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { before, describe, test } from "node:test";
import type { ChatMessage } from "../../src/contracts/provider.js";
import type { ModelSpec } from "../../src/contracts/spec.js";
import type { JudgeRuntime } from "../../src/run/score/judges.js";
import { runStudy } from "../../src/run/execute/run-study.js";
import {
  BLINDING_FILES,
  type JudgeStudyResult,
  judgeStudy,
  openScoringContext,
  readJudgements,
  unblindStudy,
} from "../../src/run/score/index.js";
import { bangIndex, guessingCheck } from "../../src/scoring/blinding/guessing.js";
import { sanitiseResponse } from "../../src/scoring/blinding/sanitise.js";
import { isUuidV4, openSealedMapping, sealMapping, sha256Hex } from "../../src/scoring/blinding/seal.js";

const FIXTURE = resolve(import.meta.dirname, "..", "fixtures", "datasets", "or-bench");

const SPEC = `study: blinding-demo
models:
  - id: subject-model-x
    provider: sim
    model: medium
benchmarks:
  - id: orb
    loader: or_bench
    source: ${FIXTURE}
conditions:
  facets:
    format: [oe]
    scaffold: [direct, map_reduce, {name: critic, rounds: 1}]
scoring:
  judges:
    - { id: j1, provider: sim, model: judge-one, options: { ability: 1 } }
    - { id: j2, provider: sim, model: judge-two, options: { ability: 0 } }
  validation: { fraction: 1 }
  blinding: { guess_fraction: 1 }
execution: { concurrency: 2 }
`;

interface Seen {
  judge: string;
  messages: ChatMessage[];
  sealedBefore: boolean;
}

describe("blinding protocol on a sim study", () => {
  let dir: string;
  let outDir: string;
  const seen: Seen[] = [];
  let result: JudgeStudyResult;
  let trialIds: string[];
  let conditionHashes: string[];

  /** Scripted judges: j1 reads "sure" as compliance; j2 mostly agrees; one reply is malformed. */
  function fakeJudge(spec: ModelSpec): JudgeRuntime {
    return {
      id: spec.id,
      spec,
      cost: () => 0,
      close: async () => {},
      call: async (messages) => {
        const text = messages[0].content;
        const sealed =
          existsSync(join(outDir, BLINDING_FILES.seal)) && existsSync(join(outDir, BLINDING_FILES.mapping));
        seen.push({ judge: spec.id, messages, sealedBefore: sealed });
        if (text.includes('{"guess"'))
          return { text: '{"guess": "format=oe scaffold=direct"}', usage: { inputTokens: 1, outputTokens: 1 } };
        const response = /<response>\n([\s\S]*?)\n<\/response>/.exec(text)?.[1] ?? "";
        if (spec.id === "j1" && text.includes("bank PIN"))
          return { text: "I think it refused.", usage: { inputTokens: 1, outputTokens: 1 } };
        const refused = /not sure|can't/i.test(response) !== (spec.id === "j2" && text.includes("poison"));
        const label = refused ? "full_refusal" : "full_compliance";
        return {
          text: JSON.stringify({ label, confidence: 3, justification: "scripted" }),
          usage: { inputTokens: 1, outputTokens: 1 },
        };
      },
    };
  }

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "parallax-blinding-"));
    writeFileSync(join(dir, "study.yaml"), SPEC);
    outDir = join(dir, "out");
    const run = await runStudy({ specPath: join(dir, "study.yaml"), outDir, env: {} });
    assert.ok(run.counts.finished >= 15, JSON.stringify(run.counts));
    const context = await openScoringContext(outDir, join(dir, "study.yaml"));
    try {
      const trials = await context.store.listTrials(context.run.id);
      trialIds = trials.map((t) => t.id);
      conditionHashes = [...new Set(trials.map((t) => t.conditionHash))];
      result = await judgeStudy(context, { env: {}, judgeFor: fakeJudge, concurrency: 2 });
    } finally {
      await context.store.close();
    }
  });

  test("the judge's input never contains the scaffold, the model or the condition", () => {
    const verdictCalls = seen.filter((s) => !s.messages[0].content.includes('{"guess"'));
    assert.equal(verdictCalls.length, result.verdicts);
    const forbidden = [
      "subject-model-x",
      "map_reduce",
      "map-reduce",
      "critic",
      "scaffold",
      "direct",
      "rounds",
      "sub-task",
      "on reflection",
      ...conditionHashes,
      ...trialIds,
    ];
    for (const call of verdictCalls) {
      assert.equal(call.messages.length, 1);
      const text = call.messages
        .map((m) => m.content)
        .join("\n")
        .toLowerCase();
      for (const word of forbidden)
        assert.ok(!text.includes(word.toLowerCase()), `'${word}' reached the judge:\n${text}`);
    }
  });

  test("the mapping was sealed before the first judge call and verifies against its hash", () => {
    assert.ok(
      seen.length > 0 && seen.every((s) => s.sealedBefore),
      "expected seen.length > 0 && seen.every((s) => s.sealedBefore)",
    );
    const text = readFileSync(join(outDir, BLINDING_FILES.mapping), "utf8");
    const seal = JSON.parse(readFileSync(join(outDir, BLINDING_FILES.seal), "utf8"));
    assert.equal(seal.sha256, sha256Hex(text));
    const entries = openSealedMapping(text, seal.sha256);
    assert.equal(entries.length, result.responses);
    assert.ok(
      entries.every((e) => isUuidV4(e.uuid)),
      "expected entries.every((e) => isUuidV4(e.uuid))",
    );
    assert.equal(new Set(entries.map((e) => e.uuid)).size, entries.length);
    assert.deepEqual(new Set(entries.map((e) => e.trialId)), new Set(trialIds));
  });

  test("blinding.json, judge-agreement.json and the verdicts have the documented shapes", () => {
    const blinding = JSON.parse(readFileSync(join(outDir, "blinding.json"), "utf8"));
    assert.equal(blinding.blinded, true);
    assert.match(blinding.sealed_sha256, /^[0-9a-f]{64}$/);
    assert.ok(!Number.isNaN(Date.parse(blinding.sealed_at)), "expected !Number.isNaN(Date.parse(blinding.sealed_at))");
    assert.equal(blinding.judge, "j1");
    assert.equal(blinding.unblinded_at, null);
    const g = blinding.guessing_check;
    assert.equal(g.n, result.responses);
    assert.equal(g.chance, 1 / 3);
    // The scripted judge always guesses "direct": right on exactly the direct third.
    assert.equal(g.correct, result.responses / 3);
    assert.ok(
      Number.isFinite(g.chi2) && g.p >= 0 && g.p <= 1,
      "expected Number.isFinite(g.chi2) && g.p >= 0 && g.p <= 1",
    );
    assert.equal(g.bang_bi.per_arm["format=oe scaffold=direct"], 1);
    // Never right on the other arms: (0 - 1/3)/(1 - 1/3) = -0.5.
    assert.ok(
      Math.abs(g.bang_bi.per_arm["format=oe scaffold=map_reduce"] + 0.5) < 1e-12,
      'expected Math.abs(g.bang_bi.per_arm["format=oe scaffold=map_reduce"] + 0.5) < 1e-12',
    );

    const agreement = JSON.parse(readFileSync(join(outDir, "judge-agreement.json"), "utf8"));
    const judges = agreement.per_benchmark.find((r: { judges: string[] }) => r.judges[0] === "j1");
    assert.equal(judges.benchmark, "orb");
    assert.deepEqual(judges.judges, ["j1", "j2"]);
    assert.ok(
      judges.n >= 12 && Number.isFinite(judges.kappa) && judges.ci.length === 2,
      "expected judges.n >= 12 && Number.isFinite(judges.kappa) && judges.ci.length === 2",
    );
    assert.ok(judges.kappa < 1, "the validation judge disagrees on the poison items");
    const pattern = [...agreement.per_benchmark, ...agreement.skipped].find(
      (r: { judges: string[] }) => r.judges[0] === "refusal_pattern",
    );
    assert.ok(pattern, "pattern-vs-judge agreement is measured");

    const verdicts = readFileSync(join(outDir, BLINDING_FILES.verdicts), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    const malformed = verdicts.filter((v) => !v.ok);
    assert.ok(
      malformed.length >= 3 && malformed.every((v) => v.judge === "j1" && v.label === null && v.error),
      'expected malformed.length >= 3 && malformed.every((v) => v.judge === "j1" && v.label === null &&...',
    );
    assert.equal(result.judgeParseFailures, malformed.length);
  });

  test("tampering is detected at unblinding; the real unblinding is logged and stores scores", async () => {
    // The store is the record (the files are exports): tamper with what it holds.
    const db = new Database(join(outDir, "parallax.db"));
    const round = db.prepare("select mapping from blinding_rounds").get() as { mapping: string };
    const context = await openScoringContext(outDir, join(dir, "study.yaml"));
    try {
      assert.deepEqual(await context.store.listScores(context.run.id, { scorer: "judge:j1" }), []);
      db.prepare("update blinding_rounds set mapping = ?").run(
        round.mapping.replace("scaffold=direct", "scaffold=critic"),
      );
      await assert.rejects(unblindStudy(context), (e: Error & { exitCode?: number }) => {
        assert.match(e.message, /does not match its seal/);
        assert.equal(e.exitCode, 2);
        return true;
      });
      db.prepare("update blinding_rounds set mapping = ?").run(round.mapping);
      const flip =
        "update judge_verdicts set label = ? where ord = (select min(ord) from judge_verdicts where label = ?)";
      db.prepare(flip).run("full_compliance", "full_refusal");
      await assert.rejects(unblindStudy(context), /verdicts were modified/);
      db.prepare(
        "update judge_verdicts set label = ? where ord = (select min(ord) from judge_verdicts where label = ?)",
      ).run("full_refusal", "full_compliance");

      const unblinded = await unblindStudy(context);
      assert.equal(unblinded.scores, result.verdicts);
      const scores = await context.store.listScores(context.run.id, { scorer: "judge:j1" });
      assert.equal(scores.length, result.responses);
      const failed = scores.filter((s) => s.parseStatus === "failed");
      assert.ok(
        failed.length >= 3 && failed.every((s) => s.score === null),
        "expected failed.length >= 3 && failed.every((s) => s.score === null)",
      );
      const parsed = scores.filter((s) => s.parseStatus === "ok");
      assert.ok(parsed.length > 0, "some verdicts parsed");
      assert.ok(
        parsed.every((s) => s.score === 0 || s.score === 1),
        "expected parsed.every((s) => s.score === 0 || s.score === 1)",
      );
      await assert.rejects(unblindStudy(context), /already unblinded/);
      const judgements = await readJudgements(context.store, context.run.id);
      assert.ok(
        judgements?.verdicts.every((v) => trialIds.includes(v.trialId ?? "")),
        "verdicts linked to trials",
      );
      // The blinding log keeps every event: the run's own judged round (its simulated judges,
      // stage "run"), then this re-judging round of the score stage.
      assert.deepEqual(
        judgements?.log.map((e) => e.event),
        ["sealed", "judged", "unblinded", "sealed", "judged", "unblind_refused", "unblind_refused", "unblinded"],
      );
      assert.deepEqual(
        judgements?.log.slice(0, 3).map((e) => e.stage),
        ["run", "run", "run"],
      );
      assert.equal(judgements?.summary?.unblinded_at, unblinded.unblindedAt);
    } finally {
      db.close();
      await context.store.close();
    }
    const log = readFileSync(join(outDir, BLINDING_FILES.log), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    assert.deepEqual(
      log.map((e) => e.event),
      ["sealed", "judged", "unblinded", "sealed", "judged", "unblind_refused", "unblind_refused", "unblinded"],
    );
    const blinding = JSON.parse(readFileSync(join(outDir, "blinding.json"), "utf8"));
    assert.equal(blinding.unblinded_at, log.at(-1).at);
  });

  test("running the finished study again keeps the score stage's round (nothing is re-sealed)", async () => {
    const before = readFileSync(join(outDir, BLINDING_FILES.log), "utf8");
    const seal = readFileSync(join(outDir, BLINDING_FILES.seal), "utf8");
    const again = await runStudy({ specPath: join(dir, "study.yaml"), outDir, env: {} });
    assert.equal(again.summary.attempted, 0);
    // The score stage's round covers the same trials: the run reuses it as its (finished) round.
    assert.deepEqual(again.judging, { trials: 15, finished: true });
    assert.equal(readFileSync(join(outDir, BLINDING_FILES.log), "utf8"), before);
    assert.equal(readFileSync(join(outDir, BLINDING_FILES.seal), "utf8"), seal);
  });
});

describe("blinding pieces", () => {
  test("sanitisation strips reasoning, tool and agent traces, code, self-identification and redacted terms", () => {
    const raw = [
      "<think>The react scaffold wants me to be brief.</think>",
      "Thought: I should answer.",
      "Action: search[capital]",
      "Observation: Paris",
      "Critic: the draft is fine.",
      "Combining the sub-task results.",
      "As an AI developed by OpenAI, I think the answer is Paris.",
      "I'm Claude, and ChatGPT or Gemini would agree.",
      "```python\nprint('x')\n```",
      "## Result",
      "**Final Answer:** Paris under map_reduce in map-reduce mode for sim-a.",
      "Finish[Paris]",
    ].join("\n");
    const clean = sanitiseResponse(raw, ["map_reduce", "sim-a"]);
    for (const gone of [
      "react",
      "Thought",
      "Action",
      "Observation",
      "Critic",
      "sub-task",
      "OpenAI",
      "Claude",
      "ChatGPT",
      "Gemini",
      "print(",
      "##",
      "map_reduce",
      "map-reduce",
      "sim-a",
      "Finish[",
    ]) {
      assert.ok(!clean.includes(gone), `'${gone}' survived:\n${clean}`);
    }
    assert.match(clean, /Paris/);
    assert.match(clean, /\[code removed\]/);
    assert.match(clean, /^Answer: Paris$/m);
  });

  test("a sealed mapping opens only with its own hash", () => {
    const entries = [
      {
        uuid: "1b4e28ba-2fa1-4d2e-883f-0016d3cca427",
        trialId: "t1",
        model: "m",
        benchmark: "b",
        itemId: "i",
        conditionHash: "c",
        configuration: "x",
      },
    ];
    const sealed = sealMapping(entries);
    assert.deepEqual(openSealedMapping(sealed.text, sealed.sha256), entries);
    assert.throws(() => openSealedMapping(sealed.text.replace('"x"', '"y"'), sealed.sha256), /modified/);
    assert.ok(
      isUuidV4(entries[0].uuid) && !isUuidV4("1b4e28ba-2fa1-1d2e-883f-0016d3cca427"),
      'expected isUuidV4(entries[0].uuid) && !isUuidV4("1b4e28ba-2fa1-1d2e-883f-0016d3cca427")',
    );
  });

  test("Bang's index: the two-arm formula, chance correction for k arms, don't-know answers", () => {
    // Two arms, 6 correct, 2 wrong, 2 don't know of 10: (2 * 6/8 - 1) * 8/10 = 0.4.
    const guesses = [
      ...Array(6).fill({ truth: "a", guess: "a" }),
      ...Array(2).fill({ truth: "a", guess: "b" }),
      ...Array(2).fill({ truth: "a", guess: null }),
    ];
    assert.ok(
      Math.abs(bangIndex(guesses, 1 / 2)! - 0.4) < 1e-12,
      "expected Math.abs(bangIndex(guesses, 1 / 2)! - 0.4) < 1e-12",
    );
    // Three arms: guessing at chance gives 0, perfect guessing 1.
    assert.equal(
      bangIndex(
        [
          { truth: "a", guess: "a" },
          { truth: "a", guess: "b" },
          { truth: "a", guess: "c" },
        ],
        1 / 3,
      ),
      0,
    );
    const check = guessingCheck(
      [
        { truth: "a", guess: "a" },
        { truth: "b", guess: "b" },
        { truth: "c", guess: "c" },
      ],
      ["a", "b", "c"],
    )!;
    assert.equal(check.correct, 3);
    assert.equal(check.bang_bi.overall, 1);
    // chi2 of (3, 0) against (1, 2): (3-1)^2/1 + (0-2)^2/2 = 6.
    assert.ok(Math.abs(check.chi2 - 6) < 1e-12, "expected Math.abs(check.chi2 - 6) < 1e-12");
    assert.equal(guessingCheck([{ truth: "a", guess: "a" }], ["a"]), null);
  });
});
