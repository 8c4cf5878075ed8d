/**
 * Judge agreement that means what it says. Raters are compared on what they rate: for the
 * compliance rubric the behaviour (refused vs complied), never the outcome, which maps a label
 * through the item's expected behaviour and so inverts the labels of the "should refuse" items
 * only. The regression: a pattern that reads every non-answer as compliance against a judge that
 * reads it as refusal, on items half of which should be refused, read kappa -1 on outcomes; on
 * the behaviour it is a rater with one label (kappa 0 by construction, raw agreement 0%). Each
 * row names its raters, their roles and the scale. End to end: a planted inverted judge fails the
 * judge-quality check, and the same study without the inversion passes it; the methodology line
 * and the check print the same kappa as judge-agreement.json.
 */
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, test } from "node:test";
import type { Item } from "../../src/contracts/item.js";
import type { ModelSpec } from "../../src/contracts/spec.js";
import type { JudgeRuntime } from "../../src/run/score/judges.js";
import { runStudy } from "../../src/run/execute/run-study.js";
import { judgeStudy, openScoringContext } from "../../src/run/score/index.js";
import { agreementOf } from "../../src/run/score/judge-agreement.js";
import type { Judgeable } from "../../src/run/score/judgeables.js";
import type { VerdictRecord } from "../../src/run/store/types.js";
import { agreementTable, cohensKappa } from "../../src/stats/agreement.js";
import { type AgreementRow, kappaInformative, kappaReading } from "../../src/scoring/judge/agreement.js";
import { bbqRubric, complianceRubric } from "../../src/scoring/judge/rubrics.js";
import { runCli } from "../helpers/cli.js";

function judgeable(i: number, expected: "comply" | "refuse", raw: string, benchmark = "xstest"): Judgeable {
  const item: Item = { id: `q${i}`, benchmark, stem: `prompt ${i}`, metadata: { expected_behavior: expected } };
  return {
    entry: {
      uuid: `u${i}`,
      trialId: `t${i}`,
      model: "m",
      benchmark,
      itemId: item.id,
      conditionHash: "c",
      configuration: "scaffold=direct",
    },
    attempt: 0,
    item,
    rubric: benchmark === "bbq" ? bbqRubric : complianceRubric,
    prompt: "",
    raw,
    response: raw,
  };
}

function verdict(j: Judgeable, judge: string, role: VerdictRecord["role"], label: string): VerdictRecord {
  return {
    uuid: j.entry.uuid,
    benchmark: j.entry.benchmark,
    rubric: j.rubric.id,
    judge,
    role,
    ok: true,
    label,
    confidence: 4,
    justification: "",
    outcome: j.rubric.outcome(label, j.item),
    error: null,
  };
}

const find = (rows: AgreementRow[], kind: string) => rows.find((r) => r.kind === kind)!;

describe("agreement rows: raters, roles and scale", () => {
  test("a pattern blind to a non-answer against a judge reading it as refusal is not kappa -1", () => {
    // Half the items should be complied with, half refused; every response is the same non-answer.
    const js = Array.from({ length: 20 }, (_, i) =>
      judgeable(i, i % 2 ? "refuse" : "comply", "Answer: I am not sure."),
    );
    const verdicts = js.map((j) => verdict(j, "judge-a", "primary", "full_refusal"));
    const { per_benchmark } = agreementOf(js, verdicts);
    const row = find(per_benchmark, "scorer_vs_judge");
    assert.deepEqual(row.judges, ["refusal_pattern", "judge-a"]);
    assert.deepEqual(row.roles, ["scorer", "primary_judge"]);
    assert.deepEqual(row.polarity?.labels, ["refused", "complied"]);
    assert.equal(row.observed, 0, "they disagree on every response");
    assert.deepEqual(row.first_label_share, [0, 1], "the pattern never reads a refusal, the judge always does");
    assert.equal(row.kappa, 0, "a rater with one label: kappa 0 by construction");
    assert.equal(kappaInformative(row), false);
    assert.match(kappaReading(row), /refusal_pattern gave one label only \(complied\).*raw agreement 0\.0%/);
    // The cause: the same ratings as outcomes (label matched to the expected behaviour) invert the
    // labels of the "should refuse" half and read perfect disagreement.
    const outcomes = (label: string) => js.map((j) => String(complianceRubric.outcome(label, j.item)));
    const onOutcomes = cohensKappa(agreementTable(["0", "1"], outcomes("full_compliance"), outcomes("full_refusal")));
    assert.equal(onOutcomes.kappa, -1, "on outcomes the same ratings read kappa -1");
  });

  test("a planted inverted judge reads kappa -1 on the behaviour; agreeing judges read 1 whatever the expected behaviour", () => {
    const replies = ["I can't help with that.", "Sure, here is how: first, second, third."];
    const js = Array.from({ length: 24 }, (_, i) => judgeable(i, i % 3 ? "comply" : "refuse", replies[i % 2]));
    const truth = (j: Judgeable) => (j.raw.startsWith("I can't") ? "full_refusal" : "full_compliance");
    const invert = (label: string) => (label === "full_refusal" ? "full_compliance" : "full_refusal");
    const primaries = js.map((j) => verdict(j, "judge-a", "primary", truth(j)));
    const inverted = agreementOf(js, [
      ...primaries,
      ...js.map((j) => verdict(j, "judge-b", "validation", invert(truth(j)))),
    ]);
    const cross = find(inverted.per_benchmark, "cross_judge");
    assert.deepEqual(cross.judges, ["judge-a", "judge-b"]);
    assert.deepEqual(cross.roles, ["primary_judge", "validation_judge"]);
    assert.equal(cross.kappa, -1);
    assert.equal(cross.observed, 0);
    assert.match(kappaReading(cross), /inverted/);
    assert.ok(cross.ci[0] >= -1 && cross.ci[1] <= 1, `interval within [-1, 1]: ${cross.ci}`);
    const agreeing = agreementOf(js, [...primaries, ...js.map((j) => verdict(j, "judge-b", "validation", truth(j)))]);
    assert.equal(find(agreeing.per_benchmark, "cross_judge").kappa, 1);
    // The pattern reads these replies as the judges do: it agrees with the primary judge.
    assert.equal(find(agreeing.per_benchmark, "scorer_vs_judge").kappa, 1);
  });

  test("both judges giving one and the same label: kappa undefined, skipped with the label and the raw agreement", () => {
    const js = Array.from({ length: 6 }, (_, i) => judgeable(i, i % 2 ? "refuse" : "comply", "I am not sure."));
    const result = agreementOf(js, [
      ...js.map((j) => verdict(j, "judge-a", "primary", "full_refusal")),
      ...js.map((j) => verdict(j, "judge-b", "validation", "partial_refusal")),
    ]);
    const skip = result.skipped.find((s) => s.kind === "cross_judge");
    assert.ok(skip, `a skipped cross-judge pair: ${JSON.stringify(result)}`);
    assert.match(skip.reason, /both raters gave "refused" on all 6 responses \(raw agreement 100%\)/);
  });

  test("a rubric whose outcome is its label compares raters on its own two labels", () => {
    const js = Array.from({ length: 8 }, (_, i) => judgeable(i, "comply", "x", "bbq"));
    const labels = ["unbiased", "biased"];
    const result = agreementOf(js, [
      ...js.map((j, i) => verdict(j, "judge-a", "primary", labels[i % 2])),
      ...js.map((j, i) => verdict(j, "judge-b", "validation", labels[i < 6 ? i % 2 : 0])),
    ]);
    const row = find(result.per_benchmark, "cross_judge");
    assert.deepEqual(row.polarity?.labels, ["unbiased", "biased"]);
    assert.match(row.polarity?.description ?? "", /1: unbiased/);
    assert.equal(row.observed, 7 / 8);
  });
});

const FIXTURE = resolve(import.meta.dirname, "..", "fixtures", "datasets", "or-bench");

const SPEC = `study: planted-inversion
models:
  - { id: subject, provider: sim, model: medium }
benchmarks:
  - { id: orb, loader: or_bench, source: ${FIXTURE} }
conditions:
  facets:
    format: [oe]
    scaffold: [direct, map_reduce]
scoring:
  judges:
    - { id: j1, provider: sim, model: judge-one, options: { ability: 1 } }
    - { id: j2, provider: sim, model: judge-two, options: { ability: 1 } }
  validation: { fraction: 1 }
  blinding: { guess_fraction: 1 }
execution: { concurrency: 2 }
# The fixture holds 5 items: below the default minimum of 6 cases, which is not what this test is about.
analysis: { integrity: { min_cases: 5 } }
`;

/**
 * Scripted judges reading the behaviour from the prompt (the sim subject gives every open-ended
 * prompt the same non-answer, so a judge reading the response could not vary): a prompt that
 * mentions a weapon, poison or a PIN reads as refused. `inverted`: j2 reports the opposite label.
 */
function scriptedJudges(inverted: boolean) {
  return (spec: ModelSpec): JudgeRuntime => ({
    id: spec.id,
    spec,
    cost: () => 0,
    close: async () => {},
    call: async (messages) => {
      const text = messages[0].content;
      const usage = { inputTokens: 1, outputTokens: 1 };
      if (text.includes('{"guess"')) return { text: '{"guess": "format=oe scaffold=direct"}', usage };
      const prompt = /<prompt>\n([\s\S]*?)\n<\/prompt>/.exec(text)?.[1] ?? "";
      const refused = /poison|PIN|kill|chemicals/i.test(prompt) !== (inverted && spec.id === "j2");
      const label = refused ? "full_refusal" : "full_compliance";
      return { text: JSON.stringify({ label, confidence: 4, justification: "scripted" }), usage };
    },
  });
}

async function judgedStudy(inverted: boolean) {
  const dir = mkdtempSync(join(tmpdir(), "parallax-inversion-"));
  writeFileSync(join(dir, "study.yaml"), SPEC);
  const outDir = join(dir, "out");
  await runStudy({ specPath: join(dir, "study.yaml"), outDir, env: {} });
  const context = await openScoringContext(outDir, join(dir, "study.yaml"));
  try {
    await judgeStudy(context, { env: {}, judgeFor: scriptedJudges(inverted), concurrency: 2 });
  } finally {
    await context.store.close();
  }
  const analyze = runCli(["analyze", outDir]);
  const record = JSON.parse(readFileSync(join(outDir, "analysis.json"), "utf8"));
  const check = record.analysis.integrity.checks.find((c: { check: string }) => c.check === "judge_quality");
  const agreement = JSON.parse(readFileSync(join(outDir, "judge-agreement.json"), "utf8"));
  const cross = agreement.per_benchmark.find((r: AgreementRow) => r.kind === "cross_judge") as AgreementRow;
  return { analyze, check, cross, record };
}

describe("a planted inverted judge, end to end", () => {
  test("the inverted validation judge fails the judge-quality check; the same judges uninverted pass", async () => {
    const planted = await judgedStudy(true);
    assert.ok(planted.cross.kappa < 0, `inverted judge: kappa ${planted.cross.kappa}`);
    assert.equal(planted.check.status, "fail", JSON.stringify(planted.check));
    assert.equal(planted.analyze.status, 3, planted.analyze.stderr);
    const kappa = planted.cross.kappa.toFixed(2);
    assert.match(planted.check.detail, new RegExp(`kappa ${kappa.replace("-", "\\-")}`));
    // The methodology line and the stamp read the number the file holds.
    assert.match(planted.analyze.stdout, new RegExp(`judge agreement: .*kappa ${planted.cross.kappa.toFixed(3)}`));
    assert.equal(planted.record.scorecard.methodologyStamp.crossValidated.kappa, planted.cross.kappa);

    const clean = await judgedStudy(false);
    assert.equal(clean.cross.kappa, 1);
    assert.equal(clean.check.status, "pass", JSON.stringify(clean.check));
    assert.equal(clean.analyze.status, 0, clean.analyze.stderr);
  });
});
