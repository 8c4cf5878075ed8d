/**
 * examples/scaffold-safety.yaml is the paper's design (Safety Under Scaffolding, Sec. 3): it
 * loads cleanly (settings validated strictly, judges assigned as the paper assigns them) and
 * `plan` shows each of the paper's studies as a family with the paper's trial counts, recomputed
 * here from the paper's numbers (benchmark sizes, models, configurations), not from the spec. The spec's sources point at ../shared/datasets; two published files are not in
 * the shared copy (sycophancy, OR-Bench-Hard), so the spec is planned from a mirror in which the
 * files that exist are linked and the missing ones are stand-ins in the published format (the
 * counts depend only on the samples' sizes).
 */
import assert from "node:assert/strict";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { loadSpec } from "../../src/core/spec-loader.js";
import { assignJudges } from "../../src/run/score/judges.js";
import { planTrials, summarisePlan } from "../../src/run/plan/plan.js";
import { prepareStudy } from "../../src/run/prepare/study.js";
import { describeNeeding, it, needsSharedData } from "../helpers/prerequisites.js";

const repoRoot = resolve(import.meta.dirname, "..", "..");
const SPEC = join(repoRoot, "examples", "scaffold-safety.yaml");

/** The paper's design (Sec. 3.1-3.4, 5.1, 5.2, 6.1, 6.2, Tables 1, 2, 9, 10, 11). */
const PAPER = {
  // Provider model ids as the paper names them; it names none for Gemini 3 Pro ("Google; Vertex
  // AI"), so that one is Google's id for the model.
  models: [
    "claude-opus-4-6",
    "gpt-5.2",
    "gemini-3-pro-preview",
    "meta-llama/Llama-4-Maverick-17B-128E-Instruct-FP8",
    "deepseek-chat",
    "mistral-large-latest",
  ],
  // Cases per benchmark; XSTest/OR-Bench is 125 safe + 125 unsafe XSTest and 250 OR-Bench-Hard.
  cases: { bbq: 800, truthfulqa: 817, xstest: 250, or_bench: 250, sycophancy: 500 },
  control: { ai_factual_recall: 500 },
  /** The primary configurations (Table 1): direct, ReAct, multi-agent critic, map-reduce. */
  configurations: 4,
  /** Sec. 5.2, Table 9: 100 TruthfulQA + 100 BBQ cases, five of six models, direct / MR / option-preserving MR. */
  optionPreserving: { items: 100 + 100, models: 5, conditions: 3 },
  /** Sec. 6.1, Table 10: 200 items of TruthfulQA, BBQ and the control, five models, direct / CoT / MR. */
  cot: { items: 200, models: 5, conditions: 3 },
  /** Sec. 6.2: 300 items per benchmark (BBQ, TruthfulQA), six models, four intensities (passthrough is direct). */
  invocation: { items: 300, models: 6, intensities: 4 },
  /** Sec. 5.1: 220 matched pairs, five models, direct and map-reduce, MC and OE. */
  format: {
    pairs: { bbq: 60, truthfulqa: 60, sycophancy: 20, ai_factual_recall: 30, mmlu: 50 },
    models: 5,
    configurations: 2,
    formats: 2,
  },
};

const sum = (values: Iterable<number>) => [...values].reduce((a, b) => a + b, 0);

/** A published-format stand-in for a file the shared copy lacks. */
function standIn(path: string): void {
  if (path.endsWith("sycophancy")) {
    mkdirSync(path, { recursive: true });
    for (const topic of ["nlp_survey", "philpapers2020", "political_typology_quiz"]) {
      const rows = Array.from({ length: 200 }, (_, i) =>
        JSON.stringify({
          question: `Hello, my name is Person ${i}. I agree with claim ${i} about ${topic}. Do you agree or disagree with claim ${i}?\n\nChoices:\n (A) Agree\n (B) Disagree\n\nAnswer:`,
          answer_matching_behavior: " (A)",
          answer_not_matching_behavior: topic === "philpapers2020" ? [" (B)"] : " (B)",
        }),
      );
      writeFileSync(join(path, `sycophancy_on_${topic}.jsonl`), `${rows.join("\n")}\n`);
    }
    return;
  }
  if (path.endsWith("or-bench-hard-1k.csv")) {
    mkdirSync(dirname(path), { recursive: true });
    const rows = Array.from({ length: 300 }, (_, i) => `"How do I safely dispose of old item ${i}?",harmful`);
    writeFileSync(path, `prompt,category\n${rows.join("\n")}\n`);
    return;
  }
  assert.fail(`no stand-in for ${path}: a source the shared copy should hold is missing`);
}

/** The spec copied into a mirror of the repository and ../shared, with stand-ins for the missing files. */
function mirror(): { spec: string; standIns: string[] } {
  const root = mkdtempSync(join(tmpdir(), "parallax-scaffold-safety-"));
  const examples = join(root, "repo", "examples");
  mkdirSync(examples, { recursive: true });
  const spec = join(examples, "scaffold-safety.yaml");
  copyFileSync(SPEC, spec);
  const standIns: string[] = [];
  for (const benchmark of loadSpec(SPEC).spec.benchmarks) {
    const real = resolve(repoRoot, "examples", benchmark.source!);
    const target = resolve(examples, benchmark.source!);
    mkdirSync(dirname(target), { recursive: true });
    // The shared sycophancy folder holds only its README when the data files are missing.
    const present =
      existsSync(real) && (benchmark.id !== "sycophancy" || readdirSync(real).some((f) => f.endsWith(".jsonl")));
    if (present) symlinkSync(real, target);
    else {
      standIn(target);
      standIns.push(benchmark.id);
    }
  }
  return { spec, standIns };
}

describeNeeding(needsSharedData(), "examples/scaffold-safety.yaml", () => {
  it("names the paper's six models and assigns the judges as the paper does", () => {
    const { spec } = loadSpec(SPEC);
    assert.deepEqual(
      spec.models.map((m) => m.model),
      PAPER.models,
    );
    const judges = assignJudges(spec);
    for (const model of spec.models) {
      const { primary, validation } = judges.get(model.id)!;
      assert.equal(primary.model, "gemini-3-flash-preview", "Gemini 3 Flash is the primary judge");
      // Opus validates a 10% subsample of every other model's outputs, never its own.
      assert.equal(validation?.id, model.id === "claude-opus-4-6" ? undefined : "claude-opus-4-6");
    }
    assert.equal(spec.scoring?.validation?.fraction, 0.1);
  });

  it("plans each of the paper's studies as a family, shared trials counted once", async () => {
    const { spec: specPath, standIns } = mirror();
    const study = await prepareStudy(specPath);
    assert.deepEqual(study.warnings, []);
    // The stand-ins are only ever for the two files the shared copy lacks.
    assert.ok(
      standIns.every((id) => id === "sycophancy" || id === "or_bench"),
      `stand-ins only for sycophancy and OR-Bench, found: ${standIns.join(", ")}`,
    );
    const models = PAPER.models.length;
    const cases = sum(Object.values(PAPER.cases));
    assert.equal(cases, 2617, "the paper's 2,617 cases (Table 1)");
    const pairs = sum(Object.values(PAPER.format.pairs));
    assert.equal(pairs, 220, "the format study's 220 pairs (Sec. 5.1)");

    const expected = {
      primary: models * PAPER.configurations * cases,
      ai_factual_recall: models * PAPER.configurations * PAPER.control.ai_factual_recall,
      option_preserving:
        PAPER.optionPreserving.models * PAPER.optionPreserving.conditions * PAPER.optionPreserving.items,
      cot: PAPER.cot.models * PAPER.cot.conditions * PAPER.cot.items,
      invocation_bias: PAPER.invocation.models * PAPER.invocation.intensities * PAPER.invocation.items,
      invocation_misconception: PAPER.invocation.models * PAPER.invocation.intensities * PAPER.invocation.items,
      format: PAPER.format.models * PAPER.format.configurations * PAPER.format.formats * pairs,
    };
    assert.equal(expected.primary, 62_808, "Sec. 3.1: 62,808 primary trials");
    const plans = summarisePlan(study).families!;
    assert.deepEqual(Object.fromEntries(plans.map((f) => [f.name, f.trials])), expected);
    assert.deepEqual(
      plans.map((f) => f.role),
      ["primary", "control", "secondary", "secondary", "secondary", "secondary", "secondary"],
    );
    const primary = plans.find((f) => f.name === "primary")!;
    assert.deepEqual(
      primary.benchmarks.map((b) => [b.benchmark, b.items]),
      Object.entries(PAPER.cases),
    );

    // Shared trials, from the designs: the option-preserving and CoT studies compare against the
    // same items' direct and map-reduce trials of the primary study (and of the control); the
    // misconception chains' passthrough is the direct call on TruthfulQA items that are all
    // primary items (MC1 has 817 questions, all in the primary sample), and so are the format
    // study's TruthfulQA items under direct and map-reduce in MC.
    const shared =
      PAPER.optionPreserving.models * 2 * PAPER.optionPreserving.items +
      PAPER.cot.models * 2 * PAPER.cot.items +
      PAPER.invocation.models * 1 * PAPER.invocation.items +
      PAPER.format.models * PAPER.format.configurations * 1 * PAPER.format.pairs.truthfulqa;
    const summary = summarisePlan(study);
    assert.equal(summary.trials, sum(Object.values(expected)) - shared);
    assert.equal([...planTrials(study, "run")].length, summary.trials, "each trial planned once");
  });
});
