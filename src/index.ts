// parallax-eval: the main entry point. Layers are also importable on their own
// (parallax-eval/contracts, /stats, /models, /datasets, /scaffolds, /scoring, /run).
export * from "./contracts/index.js";
export { InputError, ParallaxError, ProviderError } from "./core/errors.js";
export { loadSpec, parseSpec } from "./core/spec-loader.js";
export * from "./run/index.js";
