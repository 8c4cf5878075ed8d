/**
 * The list page's filters as URL query parameters, read into a store query. Values are checked
 * against what the run holds (or the fixed vocabularies), so a typo answers with a clear message
 * instead of an empty page.
 */
import { FAILURE_BUCKETS } from "../contracts/failure.js";
import { callAuditors } from "../scaffolds/audits/registry.js";
import { OUTCOME_FILTERS, type OutcomeFilter, type TrialQuery } from "../run/store/browse.js";
import { conditionsMatching, type ViewerStudy } from "./study.js";

export const PARSE_STATUSES = ["ok", "failed", "not_applicable"] as const;

/** The filters as chosen on the page (strings as in the URL; absent when not set). */
export interface ListFilters {
  model?: string;
  benchmark?: string;
  item?: string;
  /** Facet name -> label. */
  facets: Record<string, string>;
  outcome?: OutcomeFilter;
  parse?: string;
  bucket?: string;
  audit?: string;
  q?: string;
}

export class FilterError extends Error {}

/** Reads and checks the filters of a list URL. */
export function readFilters(params: URLSearchParams, study: ViewerStudy): ListFilters {
  const pick = (name: string) => params.get(name)?.trim() || undefined;
  const filters: ListFilters = { facets: {} };
  filters.model = oneOf("model", pick("model"), unique(study.groups.map((g) => g.modelId)));
  filters.benchmark = oneOf("benchmark", pick("benchmark"), unique(study.groups.map((g) => g.benchmarkId)));
  filters.item = pick("item");
  for (const [facet, labels] of study.facets) {
    const label = oneOf(`facet ${facet}`, pick(`f.${facet}`), labels);
    if (label !== undefined) filters.facets[facet] = label;
  }
  filters.outcome = oneOf("outcome", pick("outcome"), OUTCOME_FILTERS) as OutcomeFilter | undefined;
  filters.parse = oneOf("parse status", pick("parse"), PARSE_STATUSES);
  filters.bucket = oneOf("failure bucket", pick("bucket"), FAILURE_BUCKETS);
  filters.audit = oneOf("audit flag", pick("audit"), auditNames());
  filters.q = pick("q");
  return filters;
}

export function auditNames(): string[] {
  return callAuditors().map((a) => a.name);
}

export function toTrialQuery(filters: ListFilters, study: ViewerStudy): TrialQuery {
  return {
    models: filters.model ? [filters.model] : undefined,
    benchmarks: filters.benchmark ? [filters.benchmark] : undefined,
    items: filters.item ? [filters.item] : undefined,
    conditionHashes: conditionsMatching(study, filters.facets),
    outcome: filters.outcome,
    parseStatus: filters.parse,
    failureBucket: filters.bucket,
    auditFailed: filters.audit,
    search: filters.q,
  };
}

/** The filters as URL parameters (for the pager's links and the report's cell links). */
export function filterParams(filters: ListFilters): URLSearchParams {
  const params = new URLSearchParams();
  const set = (name: string, value: string | undefined) => value !== undefined && params.set(name, value);
  set("model", filters.model);
  set("benchmark", filters.benchmark);
  set("item", filters.item);
  for (const [facet, label] of Object.entries(filters.facets)) params.set(`f.${facet}`, label);
  set("outcome", filters.outcome);
  set("parse", filters.parse);
  set("bucket", filters.bucket);
  set("audit", filters.audit);
  set("q", filters.q);
  return params;
}

function oneOf(what: string, value: string | undefined, known: readonly string[]): string | undefined {
  if (value === undefined) return undefined;
  if (!known.includes(value)) {
    throw new FilterError(`unknown ${what} ${JSON.stringify(value)}; expected one of: ${known.join(", ")}`);
  }
  return value;
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
}
