/** Scorecard field 1: measurement integrity, a row per check (pass / warn / fail), at the top of the report. */
import { INTEGRITY_FAILED_LINE } from "../../analysis/index.js";
import { el, table } from "../html.js";
import { registerCardRenderer } from "../sections/registry.js";

registerCardRenderer({
  field: "integrity",
  render: (integrity) =>
    // A record written before the gate existed has no integrity field.
    integrity === undefined
      ? el("p", {}, "Not computed: this analysis predates the integrity gate; run 'parallax analyze' again.")
      : [
          integrity.failed ? el("p", { class: "integrity-failed" }, el("strong", {}, INTEGRITY_FAILED_LINE)) : [],
          table(
            ["check", "status", "threshold", "detail", "cells affected", "verdicts downgraded"],
            integrity.checks.map((c) => [
              c.title,
              c.status,
              c.threshold,
              c.detail,
              c.cells.length ? c.cells.map((f) => `${f.condition} / ${f.benchmark}: ${f.reason}`).join("; ") : "-",
              c.downgraded.length ? c.downgraded.join(", ") : "-",
            ]),
          ),
        ],
});
