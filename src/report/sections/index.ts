/**
 * The report's sections in page order. A new study type adds its section file here (one import);
 * report.ts renders whatever is registered.
 */
import "./scorecard.js";
import "./charts.js";
import "./contrasts.js";
import "./hypotheses.js";
import "./subhypotheses.js";
import "./bbq-bias.js";
import "./pairwise.js";
import "./independence-ci.js";
import "./format.js";
import "./option-preserving.js";
import "./paired.js";
import "./variance.js";
import "./baseline-dependence.js";
import "./sensitivity-profiles.js";
import "./specification-curve.js";
import "./agents.js";
import "./audit.js";
import "./grid.js";
import "./methodology.js";
import "./chronology.js";
import "./cells.js";
