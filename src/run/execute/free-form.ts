import type { Item } from "../../contracts/item.js";
import { scaffoldOf } from "../../facets/scaffold.js";
import type { Scorer, ScoreResult } from "../../scoring/types.js";
import { AgentLimitReached } from "./agent-limits.js";
import { recordingCall } from "./recording-call.js";
import { toolCallRecorder } from "./tool-call.js";
import type { TrialAttempt } from "./types.js";

export interface ScoredRun {
  finalText: string;
  scored: ScoreResult;
}

/**
 * The free-form path: the condition's scaffold runs, its final text is scored. A scaffold that
 * declares tools gets a toolbox of its own (the item's attachments copied in), disposed after the
 * trial whatever happens; a per-trial limit ends its trajectory with what it submitted (none: wrong).
 */
export async function scaffoldTrial(attempt: TrialAttempt, scorer: Scorer): Promise<ScoredRun> {
  const { trial, model, calls, options, item, task } = attempt;
  const { scaffold, settings } = scaffoldOf(trial.condition);
  const startedMs = Date.now();
  const agent = scaffold.tools ? { limits: options.agents?.limits, startedMs } : undefined;
  const call = recordingCall(attempt, { audit: true, agent });
  // A scaffold's note (parsed decomposition, verdict, ...) belongs to its latest sub-call.
  const annotate = (note: Record<string, unknown>) => {
    const last = calls[calls.length - 1];
    if (last) last.note = { ...last.note, ...note };
  };
  if (!scaffold.tools) {
    const { finalText } = await scaffold.run({ task, params: model.params, call, annotate }, settings);
    return { finalText, scored: scorer.score(item, task, finalText) };
  }
  if (!options.agents) throw new Error(`scaffold ${scaffold.name} uses tools, and this run has no toolbox`);
  const attachments = attachmentPaths(item);
  const tools = await options.agents.toolbox(scaffold.tools, attachments);
  try {
    const callTool = toolCallRecorder(attempt, tools, agent!);
    const context = {
      task,
      params: model.params,
      call,
      annotate,
      tools,
      callTool,
      attachments: attachments.map(baseName),
    };
    const finalText = await scaffold.run(context, settings).then(
      (run) => run.finalText,
      (error: unknown) => {
        if (!(error instanceof AgentLimitReached)) throw error;
        annotate({ limit: error.limit });
        return "";
      },
    );
    return { finalText, scored: scorer.score(item, task, finalText) };
  } finally {
    await tools.dispose();
  }
}

/** The item's attachment files: GAIA's metadata.attachment_path, or a list in metadata.attachment_paths. */
export function attachmentPaths(item: Item): string[] {
  const metadata = item.metadata ?? {};
  const one = metadata.attachment_path;
  const many = metadata.attachment_paths;
  const paths = Array.isArray(many) ? many : [one];
  return paths.filter((p): p is string => typeof p === "string" && p !== "");
}

function baseName(path: string): string {
  return path.split(/[\\/]/).pop() ?? path;
}
