/** Parse failures per cell (model x condition x benchmark x scorer), as `parallax score` prints them. */
import type { ParseStatus } from "../../contracts/trial.js";
import { conditionLabel } from "../prepare/conditions.js";
import type { TrialRow } from "../store/types.js";

export interface CellParseSummary {
  model: string;
  condition: string;
  benchmark: string;
  scorer: string;
  n: number;
  parseFailures: number;
  parseFailureRate: number;
}

export class CellTally {
  private readonly cells = new Map<string, CellParseSummary>();

  add(trial: Pick<TrialRow, "modelId" | "condition" | "benchmarkId">, scorer: string, status: ParseStatus): void {
    this.addCell(
      { model: trial.modelId, condition: conditionLabel(trial.condition), benchmark: trial.benchmarkId, scorer },
      status === "failed",
    );
  }

  /** A cell given by its labels (judged responses carry the configuration label, not the condition). */
  addCell(labels: { model: string; condition: string; benchmark: string; scorer: string }, failed: boolean): void {
    const { model, condition, benchmark, scorer } = labels;
    const key = JSON.stringify([model, condition, benchmark, scorer]);
    const cell = this.cells.get(key) ?? {
      model,
      condition,
      benchmark,
      scorer,
      n: 0,
      parseFailures: 0,
      parseFailureRate: 0,
    };
    cell.n++;
    if (failed) cell.parseFailures++;
    cell.parseFailureRate = cell.parseFailures / cell.n;
    this.cells.set(key, cell);
  }

  /** Cells sorted by model, benchmark, condition. */
  rows(): CellParseSummary[] {
    return [...this.cells.values()].sort(
      (a, b) =>
        a.model.localeCompare(b.model) ||
        a.benchmark.localeCompare(b.benchmark) ||
        a.condition.localeCompare(b.condition),
    );
  }

  /** Cells in the order they were first seen. */
  unsorted(): CellParseSummary[] {
    return [...this.cells.values()];
  }
}
