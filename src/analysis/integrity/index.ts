/** The registered integrity checks, in the order of the "Measurement integrity" section. */
import "./nothing-measured.js";
import "./parse-failures.js";
import "./parse-imbalance.js";
import "./errored.js";
import "./sandbox.js";
import "./propagation.js";
import "./judge-quality.js";
import "./scorer-artefact.js";
import "./gold-position.js";
import "./scorer-validation.js";
import "./silent-no-op.js";
import "./parseability.js";
import "./few-clusters.js";
import "./min-information.js";

export * from "./registry.js";
