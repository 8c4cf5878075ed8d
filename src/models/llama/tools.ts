/**
 * Tool calling for the `llama` provider through node-llama-cpp's function calling: the
 * scaffold's tool specs become `ChatModelFunctions` (their JSON Schema as the grammar schema),
 * the conversation becomes node-llama-cpp chat history (an assistant turn's tool calls are
 * `functionCall` items carrying their tool results), and `LlamaChat.generateResponse` generates
 * the reply. When the model writes the function-call prefix, node-llama-cpp constrains the rest
 * of the call with a grammar built from the schema and stops with the call (no handler runs
 * here: the scaffold runs the tool in its sandbox and sends the result back as a tool message).
 *
 * The plain template (chat_template "plain") renders exactly as `renderPlainChat` does
 * ("System: ...\n\nUser: ...\n\nAssistant: ..."), with node-llama-cpp's default call syntax
 * inside assistant turns (`||call: name({...})` then `||result: ...`) and its description of the
 * available functions as a second system message. `tool_choice: "required"` makes every reply
 * start a function call (node-llama-cpp's `noPrefixTrigger` of type `functionCall`: the call
 * prefix is injected and the grammar makes the model pick one of the offered functions), the
 * equivalent of OpenAI's `tool_choice: "required"`.
 *
 * node-llama-cpp is passed in (`lib`), never imported here, so loading the provider registry
 * does not load it.
 */
import type {
  ChatHistoryItem,
  ChatModelFunctionCall,
  ChatModelFunctions,
  ChatWrapper,
  ChatWrapperGenerateContextStateOptions,
  ChatWrapperGeneratedContextState,
  GbnfJsonSchema,
  LlamaContextSequence,
  LlamaText,
} from "node-llama-cpp";
import type { ChatMessage, GenerationParams, ToolCall, ToolSpec } from "../../contracts/provider.js";

type LlamaLib = typeof import("node-llama-cpp");

export type ToolChoice = "auto" | "required";

/** The offered tools as node-llama-cpp functions: description and grammar schema of the arguments. */
export function functionsOf(tools: readonly ToolSpec[]): ChatModelFunctions {
  return Object.fromEntries(
    tools.map((tool) => [tool.name, { description: tool.description, params: grammarSchema(tool.parameters) }]),
  );
}

/**
 * A JSON Schema as node-llama-cpp's grammar schema: the keywords its grammar supports are kept
 * (types, properties, required, enum, const, anyOf/oneOf, string lengths, array items and sizes);
 * the rest (numeric bounds, patterns) are left to the tool's own argument check, whose failure
 * comes back to the model as a tool error.
 */
export function grammarSchema(schema: unknown): GbnfJsonSchema {
  const s = (schema ?? {}) as Record<string, unknown>;
  const description = typeof s.description === "string" ? { description: s.description } : {};
  if ("const" in s) return { const: s.const as string, ...description };
  if (Array.isArray(s.enum)) return { enum: s.enum as string[], ...description };
  const alternatives = (s.anyOf ?? s.oneOf) as unknown[] | undefined;
  if (Array.isArray(alternatives)) return { oneOf: alternatives.map(grammarSchema), ...description };
  const bounds = (keys: string[]) =>
    Object.fromEntries(keys.filter((key) => typeof s[key] === "number").map((key) => [key, s[key]]));
  switch (s.type) {
    case "object": {
      const properties = (s.properties ?? {}) as Record<string, unknown>;
      return {
        type: "object",
        properties: Object.fromEntries(Object.entries(properties).map(([key, value]) => [key, grammarSchema(value)])),
        ...(Array.isArray(s.required) ? { required: s.required as string[] } : {}),
        additionalProperties:
          typeof s.additionalProperties === "object"
            ? grammarSchema(s.additionalProperties)
            : s.additionalProperties === true,
        ...description,
      };
    }
    case "array":
      return {
        type: "array",
        ...(s.items !== undefined ? { items: grammarSchema(s.items) } : {}),
        ...(Array.isArray(s.prefixItems) ? { prefixItems: s.prefixItems.map(grammarSchema) } : {}),
        ...bounds(["minItems", "maxItems"]),
        ...description,
      };
    case "string":
      return { type: "string", ...bounds(["minLength", "maxLength"]), ...description };
    case "number":
    case "integer":
    case "boolean":
    case "null":
      return { type: s.type, ...description };
    default:
      // No type (or a list of types): any JSON scalar of the listed kinds.
      return {
        type: Array.isArray(s.type) ? (s.type as "string"[]) : ["string", "number", "boolean", "null"],
        ...description,
      };
  }
}

/**
 * The conversation as node-llama-cpp chat history. An assistant message's tool calls become
 * `functionCall` items of its model turn, each with the content of the tool message that answers
 * it; the history ends with a model turn (empty for a fresh reply), which the model continues.
 */
export function chatHistoryOf(messages: readonly ChatMessage[]): ChatHistoryItem[] {
  const results = new Map(
    messages.filter((m) => m.role === "tool" && m.toolCallId !== undefined).map((m) => [m.toolCallId, m.content]),
  );
  const answered = new Set(messages.flatMap((m) => (m.toolCalls ?? []).map((call) => call.id)));
  const history: ChatHistoryItem[] = [];
  for (const message of messages) {
    if (message.role === "system") history.push({ type: "system", text: message.content });
    else if (message.role === "user") history.push({ type: "user", text: message.content });
    else if (message.role === "assistant") {
      const calls = (message.toolCalls ?? []).map(
        (call): ChatModelFunctionCall => ({
          type: "functionCall",
          name: call.name,
          params: parsedArguments(call.arguments),
          result: results.get(call.id) ?? "",
        }),
      );
      history.push({ type: "model", response: [...(message.content === "" ? [] : [message.content]), ...calls] });
    } else if (message.toolCallId === undefined || !answered.has(message.toolCallId)) {
      // A tool message that answers no call of the conversation is shown as the plain template shows it.
      history.push({ type: "user", text: `Tool: ${message.content}` });
    }
  }
  if (history.at(-1)?.type !== "model") history.push({ type: "model", response: [] });
  return history;
}

function parsedArguments(text: string): unknown {
  try {
    return text.trim() === "" ? {} : JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * The plain template as a node-llama-cpp chat wrapper, with node-llama-cpp's default function
 * call syntax; `toolChoice: "required"` forces a function call at the start of every reply.
 */
export function plainToolChatWrapper(lib: LlamaLib, toolChoice: ToolChoice): ChatWrapper {
  const { LlamaText: Text, SpecialToken } = lib;
  const label = (item: ChatHistoryItem) =>
    item.type === "system" ? "System" : item.type === "user" ? "User" : "Assistant";
  class PlainToolChatWrapper extends lib.ChatWrapper {
    readonly wrapperName = "ParallaxPlain";

    override generateContextState({
      chatHistory,
      availableFunctions,
      documentFunctionParams,
    }: ChatWrapperGenerateContextStateOptions): ChatWrapperGeneratedContextState {
      const history = this.addAvailableFunctionsSystemMessageToHistory(chatHistory, availableFunctions, {
        documentParams: documentFunctionParams,
      });
      const turns = history.map((item): LlamaText => {
        if (item.type === "model") {
          const response = this.generateModelResponseText(item.response);
          return Text(["Assistant:", response.values.length === 0 ? "" : " ", response]);
        }
        const text = item.type === "system" ? Text.fromJSON(item.text) : Text(item.text);
        return Text([`${label(item)}: `, text]);
      });
      const contextText = Text([new SpecialToken("BOS"), Text.joinValues("\n\n", turns)]);
      const forced = toolChoice === "required" && Object.keys(availableFunctions ?? {}).length > 0;
      return {
        contextText,
        stopGenerationTriggers: [Text(new SpecialToken("EOS"))],
        ...(forced
          ? { noPrefixTrigger: { type: "functionCall" as const, inject: Text(this.settings.functions.call.prefix) } }
          : {}),
      };
    }
  }
  return new PlainToolChatWrapper();
}

export interface FunctionReply {
  text: string;
  toolCalls: ToolCall[];
  finishReason: string;
  inputTokens: number;
  outputTokens: number;
}

export interface FunctionTurn {
  lib: LlamaLib;
  sequence: LlamaContextSequence;
  chatWrapper: ChatWrapper;
  messages: readonly ChatMessage[];
  tools: readonly ToolSpec[];
  params: GenerationParams;
  /** Tokens the reply may use (the request's maxTokens, bounded by the free context). */
  maxTokens: number;
  signal?: AbortSignal;
}

/**
 * One reply through `LlamaChat.generateResponse` with the tools as functions: either text, or
 * the function calls the model made (it stops at them), as provider-neutral tool calls whose ids
 * continue the conversation's numbering.
 */
export async function generateWithFunctions(turn: FunctionTurn): Promise<FunctionReply> {
  const { lib, sequence, params } = turn;
  await sequence.clearHistory();
  const chat = new lib.LlamaChat({
    contextSequence: sequence,
    chatWrapper: turn.chatWrapper,
    autoDisposeSequence: false,
  });
  const before = sequence.tokenMeter.getState();
  try {
    const temperature = params.temperature ?? 0;
    const response = await chat.generateResponse(chatHistoryOf(turn.messages), {
      functions: functionsOf(turn.tools),
      maxTokens: turn.maxTokens,
      // Greedy unless temperature > 0; absent topK/topP mean "no filter", as in plain generation.
      ...(temperature > 0 ? { temperature, topK: params.topK ?? 0, topP: params.topP ?? 1, seed: params.seed } : {}),
      repeatPenalty: false,
      customStopTriggers: (params.stop ?? []).filter((stop) => stop.length > 0),
      signal: turn.signal,
    });
    const used = sequence.tokenMeter.diff(before);
    const priorCalls = turn.messages.reduce((n, m) => n + (m.toolCalls?.length ?? 0), 0);
    const toolCalls = (response.functionCalls ?? []).map(
      (call, i): ToolCall => ({
        id: `llama_call_${priorCalls + i + 1}`,
        name: call.functionName,
        arguments: JSON.stringify(call.params ?? {}),
      }),
    );
    const stop = response.metadata.stopReason;
    return {
      text: response.response.startsWith(" ") ? response.response.slice(1) : response.response,
      toolCalls,
      finishReason: toolCalls.length > 0 ? "tool_calls" : stop === "maxTokens" ? "length" : "stop",
      inputTokens: used.usedInputTokens,
      outputTokens: used.usedOutputTokens,
    };
  } finally {
    chat.dispose({ disposeSequence: false });
    await sequence.clearHistory();
  }
}

/** The prompt's length in tokens as the wrapper renders it (to refuse a prompt that leaves no room). */
export function functionPromptTokens(
  chatWrapper: ChatWrapper,
  messages: readonly ChatMessage[],
  tools: readonly ToolSpec[],
  tokenizer: Parameters<LlamaText["tokenize"]>[0],
): number {
  const { contextText } = chatWrapper.generateContextState({
    chatHistory: chatHistoryOf(messages),
    availableFunctions: functionsOf(tools),
  });
  return contextText.tokenize(tokenizer).length;
}
