/** The audit gate card in `parallax analyze`'s overview: each cell's CSR, gates G1-G6 and status. */
import { auditGlanceTable } from "./audit-tables.js";
import type { AuditResult } from "./result.js";
import { renderText } from "../core/result-table.js";
import { wrap } from "../core/text.js";

const FACET_SEPARATOR = " × ";

export function auditOverviewLines(audit: AuditResult): string[] {
  const counts = new Map<string, number>();
  for (const c of audit.cells) counts.set(c.status.bucket, (counts.get(c.status.bucket) ?? 0) + 1);
  const { shared, labels } = splitSharedFacets(audit.cells.map((c) => c.cell));
  const gateIds = audit.cells[0]?.status.gates.map((g) => g.id) ?? [];
  return [
    ...wrap(
      `${audit.cells.length} cells: ${[...counts].map(([status, n]) => `${n} ${status}`).join(", ")} (G1-G6 and the §3 status, first match wins)`,
      120,
      "  ",
    ),
    ...(shared.length > 0 ? wrap(`every cell: ${shared.join(FACET_SEPARATOR)}`, 120, "  ") : []),
    ...renderText(
      auditGlanceTable(gateIds),
      audit.cells.map((cell, i) => ({ cell, label: labels[i] })),
    ),
    `(✓ gate passed, ✗ failed; * gate proposed, not implemented; audit-gate.md has the evidence)`,
  ];
}

/**
 * The parts of the cells' names (model × benchmark × facet=level ...) that every cell has, said
 * once above the table, and each cell's name without them; a lone cell keeps its whole name.
 */
function splitSharedFacets(cells: string[]): { shared: string[]; labels: string[] } {
  const parts = cells.map((cell) => cell.split(FACET_SEPARATOR));
  if (parts.length < 2) return { shared: [], labels: cells };
  const shared = parts[0].filter((part) => parts.every((p) => p.includes(part)));
  const labels = parts.map((p) => p.filter((part) => !shared.includes(part)).join(FACET_SEPARATOR) || "-");
  return { shared, labels };
}
