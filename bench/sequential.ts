// Sequential-run calibration (npm run bench:sequential): the design of examples/sequential-sim.yaml
// (four looks, Lan-DeMets alpha spending, stop on harm or equivalence) run as 2,000 simulated
// studies on the simulated panel's mechanism (bench/sequential-calibration.ts) with no effect and
// with a planted harm, under O'Brien-Fleming-type and Pocock-type spending. Checks the type I error
// against its nominal level (within 2.58 Monte Carlo standard errors) and the power against the
// plan's prediction (within 3 points), and reports the expected share of items run and the cost
// saved against the fixed design. Prints a Markdown table; exits 1 when a check fails.
import { loadavg } from "node:os";
import { join, resolve } from "node:path";
import { summarisePlan } from "../src/run/plan/plan.js";
import { prepareStudy } from "../src/run/prepare/study.js";
import {
  type Panel,
  planPrediction,
  REASONING_BONUS,
  simulateSequentialStudies,
  trueEffect,
} from "./sequential-calibration.js";

const STUDIES = Number(process.env.SEQUENTIAL_STUDIES ?? 2000);
const repoRoot = resolve(import.meta.dirname, "..");

const study = await prepareStudy(join(repoRoot, "examples", "sequential-sim.yaml"));
const declared = study.spec.execution.sequential!;
const abilities = study.spec.models.map((m) => Number((m.options as { ability?: number }).ability ?? 0));
const items = [...study.items.values()].reduce((n, byId) => n + byId.size, 0);
const plannedCost = summarisePlan(study).estimatedCostUsd;
// The example's planted -2 is a harm no design misses; the calibration plants a moderate one.
const PLANTED = { none: -REASONING_BONUS, harm: -0.5 - REASONING_BONUS };

const rows: string[] = [];
let failed = false;
const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
console.log(
  `load before: ${loadavg()
    .map((l) => l.toFixed(2))
    .join(" ")}; ${STUDIES} simulated studies per row`,
);
for (const spending of ["obrien-fleming", "pocock"] as const) {
  const setup = { study, sequential: { ...declared, spending } };
  for (const [name, planted] of Object.entries(PLANTED)) {
    const panel: Panel = { abilities, shift: planted + REASONING_BONUS, items };
    const started = performance.now();
    const simulated = simulateSequentialStudies(setup, panel, STUDIES, 17);
    const seconds = (performance.now() - started) / 1000;
    const predicted = planPrediction(setup, panel, 4000, 29);
    const isNull = name === "none";
    const target = isNull ? declared.alpha : predicted.power;
    const tolerance = isNull ? 2.58 * Math.sqrt((declared.alpha * (1 - declared.alpha)) / STUDIES) : 0.03;
    const ok = Math.abs(simulated.rejections - target) <= tolerance;
    failed ||= !ok;
    const saved = plannedCost * (1 - simulated.expectedFraction);
    rows.push(
      `| ${spending} | ${isNull ? "none" : `harm, RD ${(100 * trueEffect(panel)).toFixed(1)} pp`} | ` +
        `${pct(simulated.rejections)} +/- ${pct(simulated.monteCarloSe)} | ${pct(target)}${isNull ? " (alpha)" : " (plan)"} | ${ok ? "yes" : "NO"} | ` +
        `${pct(simulated.stoppedEarly)} | ${pct(simulated.expectedFraction)} (plan ${pct(isNull ? predicted.expectedFractionNull : predicted.expectedFractionAlternative)}) | ` +
        `$${saved.toFixed(2)} of $${plannedCost.toFixed(2)} | ${seconds.toFixed(1)} s |`,
    );
  }
}
console.log(
  [
    "",
    `| spending | planted effect | rejected (MC se) | expected | within | stopped early | E[items run] | cost saved (plan's upper bound) | time |`,
    "|---|---|---|---|---|---|---|---|---|",
    ...rows,
    "",
    `load after: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")}`,
  ].join("\n"),
);
if (failed) {
  console.error("a calibration check failed");
  process.exitCode = 1;
}
