/** The audit gate card in `parallax analyze`'s overview: each cell's CSR, gates G1-G6 and status. */
import type { AuditResult } from "./result.js";
import { num, textTable } from "../text.js";

export function auditOverviewLines(audit: AuditResult): string[] {
  const counts = new Map<string, number>();
  for (const c of audit.cells) counts.set(c.status.bucket, (counts.get(c.status.bucket) ?? 0) + 1);
  return [
    `${audit.cells.length} cells: ${[...counts].map(([status, n]) => `${n} ${status}`).join(", ")} (G1-G6 and the §3 status, first match wins)`,
    ...textTable(
      ["cell", "CSR [95% CI]", "gates", "status", "flags"],
      audit.cells.map((c) => [
        c.cell,
        `${num(c.csr)} [${num(c.ci[0])}, ${num(c.ci[1])}]`,
        c.status.gates
          .map((g) => `${g.id}${g.passed ? "✓" : "✗"}${g.implementation === "implemented" ? "" : "*"}`)
          .join(" "),
        c.status.bucket,
        c.status.flags.join(",") || "-",
      ]),
    ),
    `(* gate proposed, not implemented; audit-gate.md has the evidence)`,
  ];
}
