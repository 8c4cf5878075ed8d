/** Scorecard field 3: the methodology stamp, each line with a badge. */
import { blindedWord, crossValidatedWord, num, specCurveWord, pct, pEquals } from "../../analysis/index.js";
import { el } from "../html.js";
import { registerCardRenderer } from "../sections/registry.js";

const badge = (ok: boolean, text: string) => el("span", { class: ok ? "badge ok" : "badge bad" }, text);

registerCardRenderer({
  field: "methodologyStamp",
  render: (s) =>
    el(
      "ul",
      {},
      el(
        "li",
        {},
        "Pre-registered: ",
        badge(s.preregistered.status.includes("matches"), s.preregistered.status),
        ` ${s.preregistered.detail}`,
      ),
      el(
        "li",
        {},
        "Blinded: ",
        badge(s.blinded.blinded && s.blinded.held !== false, blindedWord(s.blinded)),
        ` ${s.blinded.detail}`,
      ),
      el(
        "li",
        {},
        "Cross-validated: ",
        badge(s.crossValidated.crossValidated, crossValidatedWord(s.crossValidated)),
        s.crossValidated.kappa !== null
          ? ` Cohen's kappa ${num(s.crossValidated.kappa, 3)} (the smallest benchmark's).`
          : "",
        ` ${s.crossValidated.detail}`,
      ),
      el(
        "li",
        {},
        "Specification curve: ",
        badge(
          s.specificationCurve.run,
          s.specificationCurve.run
            ? "run"
            : s.specificationCurve.detail.startsWith("not estimable")
              ? "not estimable"
              : "not run",
        ),
        s.specificationCurve.run
          ? ` ${s.specificationCurve.contrast}: median OR ${num(s.specificationCurve.medianOddsRatio)}, ${pct(s.specificationCurve.shareSignificant, 0)} significant${s.specificationCurve.permutationP !== null ? `, permutation ${pEquals(s.specificationCurve.permutationP)}` : ""}. ${s.specificationCurve.detail}`
          : ` ${specCurveWord(s.specificationCurve)}`,
      ),
    ),
});
