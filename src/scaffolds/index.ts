// Public surface of the scaffolds layer (parallax-eval/scaffolds): the scaffold registry, the
// scaffold contract and the helpers a scaffold author needs (docs/EXTENDING.md).
export { lastAnswer, renderOptions, renderTask, taskMessages, withAnswerLine, withSystem } from "./prompt.js";
export { scaffolds } from "./registry.js";
export { boolSetting, callParams, choiceSetting, DEFAULT_MAX_TOKENS, intSetting } from "./settings.js";
export type { Scaffold, ScaffoldCall, ScaffoldContext, ScaffoldRun, ScaffoldSettings } from "./types.js";
