// One renderer per scorecard field a registered analysis declares.
import "./integrity.js";
import "./safety-rate-matrix.js";
import "./nnh.js";
import "./methodology-stamp.js";
