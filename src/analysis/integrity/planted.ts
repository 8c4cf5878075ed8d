/**
 * Planted failures: a demonstration study may declare that it makes an integrity check fail on
 * purpose (analysis.integrity.planted: the check, its benchmarks, why). A planted failure still
 * fails the gate and downgrades its verdicts; `analyze` says in one line that it was planted and
 * why, or that it did not occur (the plant no longer works). A failure nobody declared stays
 * unexplained.
 */
import type { IntegrityPlan } from "../../contracts/analysis.js";
import { InputError } from "../../core/errors.js";
import type { CellFinding, CheckStatus } from "./registry.js";

type Declared = NonNullable<IntegrityPlan["planted"]>[number];

export interface PlantedFailure {
  check: string;
  /** The declared benchmarks (absent: any). */
  benchmarks?: string[];
  reason: string;
  /** The check failed on at least one cell of the declared benchmarks. */
  occurred: boolean;
}

/** The declared plants against the checks' findings; refuses a plant naming no registered check. */
export function plantedFailures(
  declared: readonly Declared[],
  checks: readonly { check: string; status: CheckStatus; cells: readonly CellFinding[] }[],
): PlantedFailure[] {
  return declared.map((plant) => {
    const check = checks.find((c) => c.check === plant.check);
    if (!check)
      throw new InputError(
        `analysis.integrity.planted: no integrity check named '${plant.check}'; known: ${checks.map((c) => c.check).join(", ")}`,
      );
    const occurred = check.cells.some((f) => f.status === "fail" && covers(plant, f.benchmark));
    return { ...plant, occurred };
  });
}

function covers(plant: { benchmarks?: readonly string[] }, benchmark: string): boolean {
  return plant.benchmarks === undefined || plant.benchmarks.includes(benchmark);
}

/** A failed check's name, marked "(planted)" when every cell it fails is one the study planted. */
export function failedCheckLabel(
  planted: readonly PlantedFailure[],
  check: { check: string; cells: readonly CellFinding[] },
): string {
  const failed = check.cells.filter((f) => f.status === "fail");
  const plants = planted.filter((p) => p.check === check.check);
  const all = failed.length > 0 && failed.every((f) => plants.some((p) => covers(p, f.benchmark)));
  return all ? `${check.check} (planted)` : check.check;
}

/** One line per declared plant: planted and why, or declared but not found. */
export function plantedLines(planted: readonly PlantedFailure[]): string[] {
  return planted.map((p) => {
    const where = `${p.check}${p.benchmarks ? ` on ${p.benchmarks.join(", ")}` : ""}`;
    return p.occurred
      ? `Planted on purpose: ${where}: ${p.reason}`
      : `Declared planted but it did not fail: ${where} (${p.reason})`;
  });
}
