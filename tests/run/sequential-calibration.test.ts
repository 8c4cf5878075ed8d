import assert from "node:assert/strict";
import { join } from "node:path";
import { planPrediction, simulateSequentialStudies } from "../../bench/sequential-calibration.js";
import { prepareStudy } from "../../src/run/prepare/study.js";
import { describeNeeding, it, needsSpecData } from "../helpers/prerequisites.js";

const EXAMPLE = join(import.meta.dirname, "..", "..", "examples", "sequential-sim.yaml");

// The calibration of npm run bench:sequential on fewer studies (2,000 there): the sequential
// monitor's rejections against the nominal alpha and against the plan's predicted power.
describeNeeding(needsSpecData(EXAMPLE), "sequential design calibration on the simulated panel", () => {
  it("keeps the type I error at alpha and reaches the power the plan predicts", async () => {
    const study = await prepareStudy(EXAMPLE);
    const setup = { study, sequential: study.spec.execution.sequential! };
    const studies = 500;
    const none = simulateSequentialStudies(setup, { abilities: [1.2, 0.8], shift: 0, items: 160 }, studies, 3);
    const se = Math.sqrt((0.05 * 0.95) / studies);
    assert.ok(Math.abs(none.rejections - 0.05) < 3.3 * se, `type I error ${none.rejections} (se ${se})`);
    assert.ok(none.expectedFraction > 0.97, `under no effect nearly every item runs (${none.expectedFraction})`);

    const harm = { abilities: [1.2, 0.8], shift: -0.5, items: 160 };
    const simulated = simulateSequentialStudies(setup, harm, studies, 4);
    const predicted = planPrediction(setup, harm, 4000, 5);
    assert.ok(
      Math.abs(simulated.rejections - predicted.power) < 3.3 * simulated.monteCarloSe + 0.03,
      `power ${simulated.rejections} vs predicted ${predicted.power}`,
    );
    assert.ok(
      Math.abs(simulated.expectedFraction - predicted.expectedFractionAlternative) < 0.05,
      `items run ${simulated.expectedFraction} vs predicted ${predicted.expectedFractionAlternative}`,
    );
  });
});
