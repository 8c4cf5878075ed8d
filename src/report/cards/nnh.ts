/** Scorecard field 2: NNH per configuration against the reference. */
import { num, pp } from "../../analysis/index.js";
import { ci } from "../blocks.js";
import { table } from "../html.js";
import { registerCardRenderer } from "../sections/registry.js";

registerCardRenderer({
  field: "nnh",
  render: (rows) =>
    table(
      ["scope", "configuration", "RD [95% CI]", "NNH [95% CI]", "direction", "TOST-equivalent", "verdict"],
      rows.map((r) => [
        r.scope,
        r.condition,
        `${pp(r.riskDifference)}${ci(r.rdCi95, (v) => pp(v))}`,
        `${num(r.nnh, 1)}${ci(r.nnhCi95, (v) => num(v, 1))}`,
        r.direction ?? "-",
        r.equivalent === null ? "-" : r.equivalent ? "yes" : "no",
        r.verdict,
      ]),
    ),
});
