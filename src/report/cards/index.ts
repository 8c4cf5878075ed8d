// One renderer per scorecard field a registered analysis declares.
import "./integrity.js";
import "./comparison/safety-rate-matrix.js";
import "./comparison/nnh.js";
import "./methodology-stamp.js";
