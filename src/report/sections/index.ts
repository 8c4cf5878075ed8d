/**
 * The report's sections in registration order. report.ts places them: each study kind's card
 * first (the section declares `card`), then the kind's other sections, then the shared ones in
 * this order. A new study type adds its section file here (one import); report.ts does not change.
 */
import "./integrity.js";
import "./scorecard.js";
import "./families.js";
import "./comparison/charts.js";
import "./conditions/contrasts.js";
import "./conditions/hypotheses.js";
import "./comparison/subhypotheses.js";
import "./comparison/bbq-bias.js";
import "./conditions/pairwise.js";
import "./conditions/independence-ci.js";
import "./comparison/format.js";
import "./comparison/option-preserving.js";
import "./conditions/paired.js";
import "./conditions/variance.js";
import "./comparison/baseline-dependence.js";
import "./comparison/sensitivity-profiles.js";
import "./conditions/specification-curve.js";
import "./agents/agents.js";
import "./audit/audit.js";
import "./grid/grid.js";
import "./methodology.js";
import "./chronology.js";
import "./sequential.js";
import "./selection.js";
import "./across.js";
import "./cells.js";
