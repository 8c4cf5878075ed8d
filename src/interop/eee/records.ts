/**
 * Every Eval Ever v0.3 records from stored trials: the instance-level record of one trial and
 * the aggregate record of one model (its rate per benchmark x configuration with the CI and the
 * generation config). Values EEE types as strings-only maps are written as strings.
 */
import { createHash } from "node:crypto";
import type { CallRecord } from "../../contracts/trial.js";
import type { TrialRow } from "../../run/store/types.js";
import type { RateCell } from "../../analysis/every-study/rates.js";
import { PARALLAX_VERSION } from "../../core/version.js";
import type { StudyProvenance } from "../../contracts/provenance.js";

export const EEE_SCHEMA_VERSION = "0.3.0";

/** A deterministic UUID v4-shaped id (EEE's file names require one) from a key. */
export function uuidOf(key: string): string {
  const h = createHash("sha256").update(key).digest("hex");
  const variant = "89ab"[Number.parseInt(h[16], 16) % 4];
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

export interface InstanceContext {
  evaluationId: string;
  evaluationResultId: string;
  model: string;
  configuration: string;
  /** The outcome exported: the run-time one or a stored scorer's. */
  outcome: number | null;
  parsedAnswer: string | null;
  scorer: string | null;
  /** The trial's response came from a simulated respondent. */
  simulated: boolean;
}

export function instanceRecord(
  trial: TrialRow,
  calls: readonly CallRecord[],
  ctx: InstanceContext,
): Record<string, unknown> {
  const note = calls[0]?.note as { input?: unknown; target?: unknown; choices?: unknown } | undefined;
  const firstUser = calls[0]?.messages.filter((m) => m.role === "user").at(-1)?.content;
  const input = {
    raw: typeof note?.input === "string" ? note.input : (firstUser ?? ""),
    reference: Array.isArray(note?.target) ? note.target.map(String) : [],
    choices: Array.isArray(note?.choices) ? note.choices.map(String) : null,
  };
  const multi = calls.length > 1;
  const messages = multi ? transcript(calls) : null;
  const final = trial.outcome?.finalAnswer ?? calls.at(-1)?.responseText ?? "";
  const usage = trial.outcome?.usage;
  return {
    schema_version: EEE_SCHEMA_VERSION,
    evaluation_id: ctx.evaluationId,
    model_id: ctx.model,
    evaluation_name: trial.benchmarkId,
    evaluation_result_id: ctx.evaluationResultId,
    sample_id: trial.itemId,
    sample_hash: null,
    interaction_type: multi ? "multi_turn" : "single_turn",
    input,
    output: multi ? null : { raw: [final] },
    messages,
    answer_attribution: [
      {
        turn_idx: multi ? messages!.length - 1 : 0,
        source: multi ? `messages[${messages!.length - 1}].content` : "output.raw",
        extracted_value: ctx.parsedAnswer ?? "",
        extraction_method: ctx.scorer ?? "none",
        is_terminal: true,
      },
    ],
    evaluation: {
      score: ctx.outcome ?? 0,
      is_correct: ctx.outcome === 1,
      ...(multi ? { num_turns: messages!.length } : {}),
    },
    token_usage: usage
      ? {
          input_tokens: usage.inputTokens,
          output_tokens: usage.outputTokens,
          total_tokens: usage.inputTokens + usage.outputTokens,
        }
      : null,
    performance: { latency_ms: trial.outcome?.latencyMs ?? null },
    error: trial.outcome?.errorMessage ?? null,
    metadata: {
      parallax_trial_id: trial.id,
      attempt: String(trial.attempt),
      condition_hash: trial.conditionHash,
      configuration: ctx.configuration,
      status: trial.status,
      // EEE's score is a number: a trial without an outcome says so here.
      scored: String(ctx.outcome !== null),
      simulated: String(ctx.simulated),
    },
  };
}

/** Every call's messages and response in order, numbered as EEE turns. */
function transcript(calls: readonly CallRecord[]): Record<string, unknown>[] {
  const turns: { role: string; content: string | null }[] = [];
  for (const call of calls) {
    for (const m of call.messages) turns.push({ role: m.role, content: m.content });
    turns.push({ role: "assistant", content: call.responseText });
  }
  return turns.map((t, turn_idx) => ({ turn_idx, ...t }));
}

export interface AggregateInput {
  evaluationId: string;
  model: string;
  provider: string;
  provenance: StudyProvenance;
  createdAt: string;
  retrievedAt: string;
  results: {
    cell: RateCell;
    source: string;
    params: CallRecord["paramsUsed"] | null;
    dropped: string[];
  }[];
  uncertaintySource: string;
  samples: { filePath: string; checksum: string; rows: number };
}

export function aggregateRecord(input: AggregateInput): Record<string, unknown> {
  const [developer] = input.model.includes("/") ? input.model.split("/") : ["unknown"];
  return {
    schema_version: EEE_SCHEMA_VERSION,
    evaluation_id: input.evaluationId,
    evaluation_timestamp: input.createdAt,
    retrieved_timestamp: input.retrievedAt,
    source_metadata: sourceMetadata(input.provenance),
    eval_library: { name: "parallax", version: PARALLAX_VERSION },
    model_info: {
      name: input.model.split("/").at(-1) ?? input.model,
      id: input.model,
      developer,
      inference_platform: input.provider,
      additional_details: { deployment_type: "unknown", model_availability: "unknown" },
    },
    evaluation_results: input.results.flatMap((result) =>
      result.cell.itt ? [evaluationResult(result, input.uncertaintySource)] : [],
    ),
    detailed_evaluation_results: {
      format: "jsonl",
      file_path: input.samples.filePath,
      hash_algorithm: "sha256",
      checksum: input.samples.checksum,
      total_rows: input.samples.rows,
    },
  };
}

/**
 * Who ran the study and what it is: the SIMULATED label in the source's name (where a reader
 * looks first) and, as strings (EEE's additional details hold only strings), the provenance.
 */
function sourceMetadata(provenance: StudyProvenance): Record<string, unknown> {
  return {
    source_name: `Parallax study ${provenance.study}${provenance.simulated ? " (SIMULATED DATA)" : ""}`,
    source_type: "evaluation_run",
    source_organization_name: "unknown",
    evaluator_relationship: "other",
    additional_details: {
      run_id: provenance.run_id,
      simulated: String(provenance.simulated),
      parallax_version: provenance.parallax_version,
      spec_hash: provenance.spec_hash,
      ...(provenance.imported_from ? { imported_from: provenance.imported_from } : {}),
      ...(provenance.origins.length > 0 ? { origins: JSON.stringify(provenance.origins) } : {}),
    },
  };
}

function evaluationResult(
  result: AggregateInput["results"][number],
  uncertaintySource: string,
): Record<string, unknown> {
  const { cell, source, params, dropped } = result;
  const itt = cell.itt!;
  const se = Math.sqrt((itt.rate * (1 - itt.rate)) / itt.n);
  return {
    evaluation_result_id: cell.id,
    evaluation_name: cell.benchmark,
    source_data: { dataset_name: cell.benchmark, source_type: "other", additional_details: { source } },
    metric_config: {
      evaluation_description: `Share of scored trials with outcome 1 (ITT: parse failures count 0) under ${cell.configuration}`,
      metric_id: "parallax.itt_rate",
      metric_name: "ITT rate",
      lower_is_better: false,
      score_type: "continuous",
      min_score: 0,
      max_score: 1,
      additional_details: { configuration: cell.configuration, condition: cell.condition },
    },
    score_details: {
      score: itt.rate,
      details: {
        successes: String(itt.successes),
        n: String(itt.n),
        errored: String(cell.errored),
        parse_failures: String(cell.parseFailures),
        pp_rate: cell.pp ? String(cell.pp.rate) : "",
      },
      uncertainty: {
        standard_error: { value: se, method: "analytic (binomial, sqrt(p(1-p)/n))" },
        confidence_interval: {
          lower: itt.ci95[0],
          upper: itt.ci95[1],
          confidence_level: 0.95,
          method: `Wilson score interval (${uncertaintySource})`,
        },
        num_samples: itt.n,
      },
    },
    generation_config: {
      generation_args: {
        ...(params?.temperature !== undefined ? { temperature: params.temperature } : {}),
        ...(params?.topP !== undefined ? { top_p: params.topP } : {}),
        ...(params?.topK !== undefined ? { top_k: params.topK } : {}),
        ...(params?.maxTokens !== undefined ? { max_tokens: params.maxTokens } : {}),
      },
      additional_details: {
        ...(params?.seed !== undefined ? { seed: String(params.seed) } : {}),
        ...(params?.stop ? { stop: JSON.stringify(params.stop) } : {}),
        dropped_params: dropped.join(";"),
        parameters_from: params ? "the first stored call of a trial of this cell" : "no stored call",
      },
    },
  };
}
