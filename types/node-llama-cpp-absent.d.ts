// Stand-in declarations for node-llama-cpp, the optional local-model engine, so that Parallax
// type-checks and builds without it (an install for API models: `npm ci`). tsconfig.json's
// `paths` (tsconfig.build.json) falls back to this file only when node_modules/node-llama-cpp does not resolve; with
// the engine installed (`npm run setup:llama`) its real declarations are used. The names are
// the ones the llama provider and its tests use; `npm run typecheck:lean` checks the list.
export type ChatHistoryItem = any;
export type ChatModelFunctionCall = any;
export type ChatModelFunctions = any;
export type ChatWrapperGenerateContextStateOptions = any;
export type ChatWrapperGeneratedContextState = any;
export type ControlledEvaluateInputItem = any;
export type GbnfJsonSchema = any;
export type Llama = any;
export type LlamaContext = any;
export type LlamaContextSequence = any;
export type LlamaModel = any;
export type Token = any;
/** What the provider's own chat wrapper overrides and calls. */
export declare class ChatWrapper {
  [member: string]: any;
  generateContextState(options: any): any;
  addAvailableFunctionsSystemMessageToHistory(...args: any[]): any[];
  generateModelResponseText(...args: any[]): any;
}
export declare const LlamaText: any;
export type LlamaText = any;
export declare const JinjaTemplateChatWrapper: any;
export declare class LlamaChat {
  constructor(options: any);
  [member: string]: any;
  generateResponse(...args: any[]): Promise<{ functionCalls?: any[]; [field: string]: any }>;
}
export declare const LlamaLogLevel: any;
export declare const SpecialToken: any;
export declare const getLlama: any;
export declare const jsonDumps: any;
