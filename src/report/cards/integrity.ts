/**
 * Measurement integrity, compact: one row per check (its status, how many cells it affects, how
 * many verdicts it downgraded); the threshold, the detail and the affected cells are folded in a
 * `<details>` under the row, so a check that touches hundreds of cells stays one line.
 */
import { INTEGRITY_FAILED_LINE, type ScorecardFields } from "../../analysis/index.js";
import { INTEGRITY_CHECKS_TABLE } from "../../analysis/integrity/integrity-analysis.js";
import { type Content, el } from "../html.js";
import { htmlTable } from "../result-table.js";
import { registerCardRenderer } from "../sections/registry.js";

type IntegrityResult = ScorecardFields["integrity"];
type Check = IntegrityResult["checks"][number];

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

/** The check's threshold, detail, cells and downgraded verdicts, folded. */
function folded(c: Check): Content {
  return el(
    "details",
    {},
    el("summary", {}, c.detail.length > 90 ? `${c.detail.slice(0, 87)}...` : c.detail || "details"),
    el("p", {}, `Threshold: ${c.threshold}.`),
    el("p", {}, c.detail),
    c.cells.length
      ? el(
          "ul",
          {},
          c.cells.map((f) => el("li", {}, `${f.condition} / ${f.benchmark}: ${f.reason}`)),
        )
      : "",
    c.downgraded.length ? el("p", {}, `Verdicts downgraded: ${c.downgraded.join(", ")}.`) : "",
  );
}

/** The gate's verdict in one line: passed or FAILED, the checks by status, the failing checks named. */
export function integrityVerdictLine(integrity: IntegrityResult | undefined): Content {
  if (integrity === undefined) return "";
  const counts = new Map<string, number>();
  for (const c of integrity.checks) counts.set(c.status, (counts.get(c.status) ?? 0) + 1);
  const failing = integrity.checks.filter((c) => c.status === "fail").map((c) => c.title);
  const downgraded = integrity.checks.reduce((n, c) => n + c.downgraded.length, 0);
  return el(
    "p",
    { class: `integrity-verdict ${integrity.failed ? "bad" : "ok"}`, id: "integrity-verdict" },
    el("strong", {}, `Measurement integrity ${integrity.failed ? "FAILED" : "passed"}`),
    ` (${[...counts].map(([status, n]) => `${n} ${status}`).join(", ")})`,
    failing.length ? `: ${failing.join("; ")}` : "",
    downgraded ? `; ${plural(downgraded, "verdict")} downgraded` : "",
    ". ",
    el("a", { href: "#integrity" }, "The checks"),
  );
}

registerCardRenderer({
  field: "integrity",
  render: (integrity) =>
    // A record written before the gate existed has no integrity field.
    integrity === undefined
      ? el("p", {}, "Not computed: this analysis predates the integrity gate; run 'parallax analyze' again.")
      : [
          integrity.failed ? el("p", { class: "integrity-failed" }, el("strong", {}, INTEGRITY_FAILED_LINE)) : [],
          htmlTable(INTEGRITY_CHECKS_TABLE, integrity.checks, {
            attrs: { class: "integrity" },
            rich: { details: folded },
            rowAttrs: (c) => ({ class: c.status === "fail" ? "fail" : "" }),
            cellAttrs: { cells: { class: "num" }, downgraded: { class: "num" } },
          }),
        ],
});
