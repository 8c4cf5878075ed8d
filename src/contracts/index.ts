export * from "./call-markers.js";
export * from "./condition.js";
export * from "./failure.js";
export * from "./item.js";
export * from "./provider.js";
export * from "./spec.js";
export * from "./task.js";
export * from "./trial.js";
