import { wrap } from "../../analysis/core/text.js";
import { conditionLabel } from "../../run/prepare/conditions.js";
import { type PlanSummary, summarisePlan } from "../../run/plan/plan.js";
import { refuseWithoutSandbox } from "../../run/execute/agent-runtime.js";
import { checkCells } from "../../run/prepare/model-runtimes.js";
import { prepareStudy } from "../../run/prepare/study.js";
import { InputError } from "../../core/errors.js";
import { LARGE_DESIGN_TRIALS } from "../../contracts/spec.js";
import { largeDesignWarning, refuseUnrunnableDesign } from "../../run/prepare/design-checks.js";

export async function planCommand(
  specPath: string,
  options: { json?: boolean; power?: boolean; pilot?: string },
): Promise<void> {
  const study = await prepareStudy(specPath);
  for (const warning of study.warnings) process.stderr.write(`warning: ${warning}\n`);
  // The design, the cells and the sandbox `run` would refuse are refused here too (exit 2), before
  // anything is estimated; a large design is named before its estimate, which renders every task.
  const trials = refuseUnrunnableDesign(study);
  if (trials > LARGE_DESIGN_TRIALS) process.stderr.write(`warning: ${largeDesignWarning(trials, study)}\n`);
  await refuseWithoutSandbox(study);
  const unchecked = await checkCells(study, process.env);
  const summary = summarisePlan(study);
  if (options.pilot && !options.power)
    throw new InputError("--pilot needs --power (it estimates the power assumptions)");
  // Loaded only for --power: the power statistics bring @stdlib, which the plain plan never needs.
  const powerModule = options.power ? await import("./plan-power.js") : undefined;
  const power = powerModule ? await powerModule.planPower(study, summary, options.pilot) : undefined;
  if (options.json) {
    const conditions = study.conditions.map(conditionLabel);
    const checks = unchecked === undefined ? "passed" : `skipped: ${unchecked}`;
    process.stdout.write(
      `${JSON.stringify({ study: study.spec.study, ...summary, conditions, capabilityChecks: checks, ...(power ? { power } : {}) }, null, 2)}\n`,
    );
    return;
  }
  const lines = [
    `study ${study.spec.study}`,
    `  ${summary.models} model(s) x ${summary.conditions} condition(s) x ${summary.items} item(s) x ${summary.attempts} attempt(s)`,
    `  cells (model x condition x benchmark): ${summary.cells}`,
    `  configuration cells (model x benchmark x configuration; a setting's decoding seeds count once): ${summary.configurationCells}`,
    ...summary.perBenchmark.map(
      (b) => `    ${b.benchmark}: |C| = ${b.configurations} configuration(s), ${b.conditions} condition(s)`,
    ),
    `  trials: ${summary.trials}${summary.families ? " (each trial once, however many families include it)" : ""}`,
    ...familyLines(summary),
    `  estimated calls: ${summary.estimatedCalls}`,
    `  estimated cost (upper bound): $${summary.estimatedCostUsd.toFixed(2)}` +
      (summary.modelsWithoutPrice.length > 0 ? ` (no price for: ${summary.modelsWithoutPrice.join(", ")})` : ""),
    `  estimated cost in batch mode (execution.mode: batch; now ${study.spec.execution.mode ?? "sync"}): $${summary.estimatedBatchCostUsd.toFixed(2)}`,
    unchecked === undefined
      ? "  provider capability checks: passed"
      : `  provider capability checks skipped (${unchecked})`,
    "conditions:",
    ...study.conditions.map((c) => `  ${conditionLabel(c)}`),
    "per model:",
    ...summary.perModel.map(
      (m) =>
        `  ${m.model}: ${m.trials} trials, ${m.calls} calls, ${m.costUsd === null ? "price unknown" : `$${m.costUsd.toFixed(2)} ($${m.batchCostUsd?.toFixed(2)} in batch mode)`}`,
    ),
    ...(power && powerModule ? powerModule.powerLines(power, summary.modelsWithoutPrice) : []),
  ];
  process.stdout.write(`${lines.join("\n")}\n`);
}

/** Each family's design and trials, the primary first (plan's text output; absent without families). */
function familyLines(summary: PlanSummary): string[] {
  if (!summary.families) return [];
  const ordered = [
    ...summary.families.filter((f) => f.role === "primary"),
    ...summary.families.filter((f) => f.role !== "primary"),
  ];
  const counted = ordered.reduce((sum, f) => sum + f.trials, 0);
  return [
    "  families (trials shared by families are run once):",
    ...ordered.flatMap((f) =>
      [
        `    ${f.name} (${f.role}): ${f.trials} trials on ${f.models.length} model(s), items ${f.benchmarks
          .map((b) => `${b.benchmark} ${b.items}`)
          .join(" + ")}${f.sharedTrials > 0 ? `; ${f.sharedTrials} of them shared with another family` : ""}`,
        `      ${f.benchmarks.map((b) => `${b.benchmark}: |C| = ${b.configurations}`).join(", ")}; conditions${
          f.conditions.length <= 12 ? `: ${f.conditions.join(", ")}` : ` (${f.conditions.length}): see the list below`
        }`,
      ].flatMap((line) => wrap(line, 120, "    ")),
    ),
    `    sum over families ${counted}; shared counted once: ${summary.trials}`,
  ];
}
