/**
 * Constructed analysis rows for the audit tests: one model, three benchmarks with planted family
 * patterns (selective, non-selective, a 100% no-op format family), the facts a study directory
 * would give (no-op audit, loader meta, scorers), and one sampled prompt pair.
 */
import type { AuditFacts } from "../../src/analysis/core/audit-facts.js";
import type { IntegrityFacts } from "../../src/analysis/integrity/registry.js";
import type { AnalysisRow } from "../../src/analysis/core/table.js";
import type { TrialPerturbationFact } from "../../src/run/score/no-op-audit.js";

export const ITEMS = 40;
const SEEDS = [42, 123, 2024];
const FAMILIES = ["format", "semantic", "attribute", "placebo"] as const;
type Family = (typeof FAMILIES)[number];

/** Score of item i under a family's slot: every benchmark's planted pattern. */
type Pattern = (family: Family, i: number, slot: number) => number;

const patterns: Record<string, Pattern> = {
  // Attribute flips items 0-19 in every slot; format flips slot 0 of items 0, 10, 20, 30.
  selective: (f, i, slot) =>
    f === "attribute" ? (i < 20 ? 0 : 1) : f === "format" && slot === 0 && i % 10 === 0 ? 0 : 1,
  // Format flips every slot of items 0-19; attribute flips slot 0 of items 0-3 only.
  nonselective: (f, i, slot) => (f === "format" && i < 20 ? 0 : f === "attribute" && slot === 0 && i < 4 ? 0 : 1),
  // As selective, but its format trials are silent no-ops on the scorer-consumed bytes.
  noop: (f, i) => (f === "attribute" ? (i < 20 ? 0 : 1) : f === "format" && i % 10 === 0 ? 0 : 1),
};

export function build(): { rows: AnalysisRow[]; facts: IntegrityFacts } {
  const rows: AnalysisRow[] = [];
  const trials = new Map<string, TrialPerturbationFact>();
  const scoring = new Map<string, { scorer: string; format: string }>();
  const row = (benchmark: string, i: number, perturbation: string, outcome: number, parseFailed = false) => {
    const trialId = `${benchmark}/${i}/${perturbation}`;
    scoring.set(trialId, { scorer: "mc_last_answer", format: "mc" });
    rows.push({
      trialId,
      model: "m",
      benchmark,
      item: `i${i}`,
      cluster: `${benchmark}\u0000i${i}`,
      attempt: 1,
      facets: { format: "mc", perturbation },
      // As the scorers return it: a parse failure is a scored 0 with parse status failed.
      outcome: parseFailed ? 0 : outcome,
      parseFailed,
      errored: false,
      simulated: false,
    });
    return trialId;
  };
  for (const [benchmark, pattern] of Object.entries(patterns)) {
    for (let i = 0; i < ITEMS; i++) {
      // The last item of the selective benchmark failed to parse on its original: its pairs drop.
      const id = row(benchmark, i, "none", 1, benchmark === "selective" && i === ITEMS - 1);
      trials.set(id, {
        path: "free_form",
        status: "original",
        family: null,
        perturbation: null,
        seed: null,
        slot: null,
        noOp: null,
      });
      for (const seed of SEEDS)
        for (const family of FAMILIES)
          for (let slot = 0; slot < 3; slot++) {
            const t = row(benchmark, i, `${family}(seed=${seed},slot=${slot})`, pattern(family, i, slot));
            const noOp = benchmark === "noop" && family === "format";
            trials.set(t, {
              path: "free_form",
              status: "applied",
              family,
              perturbation: `${family}-member`,
              seed,
              slot,
              noOp,
            });
          }
    }
  }
  const meta = {
    loader: "inline",
    archetype: "diagnostic" as const,
    baselineKind: "uniform" as const,
    baseline: 0.25,
    scoring: "mc" as const,
    scorers: null,
  };
  const audit: AuditFacts = {
    noOp: {
      trials,
      rates: [],
      samples: [
        {
          benchmark: "selective",
          item: "i0",
          model: "m",
          family: "attribute",
          perturbation: "opposite_construct",
          path: "free_form",
          original: "Question: <b>2 + 2</b>?",
          perturbed: "Question: which answer to <b>2 + 2</b> is false?",
          noOp: false,
        },
      ],
    },
    benchmarks: Object.fromEntries(Object.keys(patterns).map((b) => [b, meta])),
  };
  return {
    rows,
    facts: {
      audit,
      scoring: { loaders: { selective: "inline", nonselective: "inline", noop: "inline" }, trials: scoring },
    },
  };
}
