/**
 * The grid's validity constraints (SafetyRepro App. T "combination constraints"), as the facets
 * declare them (`Facet.constraints`; e.g. scoring_path: "logprob requires greedy decoding", and
 * the benchmark's admitted scoring paths from its loader). A spec expresses them in
 * `conditions.exclude`; a grid that still holds a violating cell is refused at plan and run,
 * naming the constraint, the cell and the exclude entry that removes it.
 */
import type { Condition } from "../contracts/condition.js";
import type { StudySpec } from "../contracts/spec.js";
import { InputError } from "../core/errors.js";
import { datasetLoaders } from "../datasets/registry.js";
import { facets } from "./registry.js";
import type { ConstraintCell, GridConstraint } from "./types.js";

/** Every constraint a registered facet declares. */
export function gridConstraints(): GridConstraint[] {
  return facets.names().flatMap((name) => [...(facets.get(name).constraints ?? [])]);
}

/** The first violation in the grid, per constraint: what refuses the study. */
export function constraintViolations(
  spec: StudySpec,
  conditionsFor: (benchmarkId: string) => readonly Condition[],
): { constraint: GridConstraint; cell: ConstraintCell; why: string; cells: number }[] {
  const found = new Map<GridConstraint, { cell: ConstraintCell; why: string; cells: number }>();
  for (const entry of spec.benchmarks) {
    if (!datasetLoaders.has(entry.loader)) continue;
    const benchmark = { id: entry.id, loader: entry.loader, meta: datasetLoaders.get(entry.loader).meta };
    for (const condition of conditionsFor(entry.id)) {
      for (const constraint of gridConstraints()) {
        const cell = { condition, benchmark };
        const why = constraint.violation(cell);
        if (why === undefined) continue;
        const known = found.get(constraint);
        if (known) known.cells++;
        else found.set(constraint, { cell, why, cells: 1 });
      }
    }
  }
  return [...found].map(([constraint, v]) => ({ constraint, ...v }));
}

/** Throws an InputError (exit 2) naming every violated constraint. */
export function refuseConstraintViolations(
  spec: StudySpec,
  conditionsFor: (benchmarkId: string) => readonly Condition[],
): void {
  const violations = constraintViolations(spec, conditionsFor);
  if (violations.length === 0) return;
  const lines = violations.map(
    ({ constraint, cell, why, cells }) =>
      `validity constraint "${constraint.name}" is violated by ${cells} condition(s) of the grid, e.g. ${why}; ` +
      `add to conditions.exclude: ${constraint.exclude(cell)}`,
  );
  throw new InputError(lines.join("\n"));
}
