/**
 * The second half of loading a spec: every facet value and every plugin setting is checked
 * against the registries that own them (the core loader cannot see the registries). Problems are
 * reported all at once, like the loader's, as FILE:LINE:COL with the YAML path, the value found
 * and the known values, in one SpecError (exit 2), before anything is loaded or written.
 */
import { existsSync } from "node:fs";
import { dirname, resolve } from "node:path";
import type { z } from "zod";
import { readablePathKind, UnreadablePathError } from "../core/guarded-read.js";
import { facetName, facetSettings } from "../contracts/condition.js";
import type { FacetValue, ModelSpec, StudySpec } from "../contracts/spec.js";
import {
  closest,
  formatPath,
  loadSpec,
  type PathSegment,
  readSpecFile,
  SpecError,
  type SpecFile,
  type SpecProblem,
  type SpecSource,
  specSource,
  zodProblems,
} from "../core/spec-loader.js";
import { COMMON_LOADER_OPTIONS } from "../datasets/options.js";
import { datasetLoaders } from "../datasets/registry.js";
import { providers } from "../models/registry.js";
import { judgeRubrics } from "../scoring/judge/rubrics.js";
import { scorers } from "../scoring/registry.js";
import { tools } from "../tools/registry.js";
import { webBackends } from "../tools/web/registry.js";
import { familyProblems } from "./families.js";
import { facets } from "./registry.js";

/** loadSpec, then validateStudy: what plan, run and preregister load a spec (a path, or a file already read) with. */
export function loadStudySpec(spec: string | SpecFile): ReturnType<typeof loadSpec> {
  const file = typeof spec === "string" ? readSpecFile(spec) : spec;
  let loaded: ReturnType<typeof loadSpec>;
  try {
    loaded = loadSpec(file);
  } catch (error) {
    // The schema's problems stop loading before the registries are asked: an unknown loader
    // name is reported with them, not after they are fixed.
    if (!(error instanceof SpecError) || "problems" in file.yaml) throw error;
    const unknown = unknownLoaderProblems(file.yaml);
    throw unknown.length === 0 ? error : new SpecError(error.file, [...error.problems, ...unknown]);
  }
  // Missing local sources are found here, with the other problems, not when the loader reads them.
  const missing = sourceProblems(loaded.spec, loaded.source, dirname(resolve(file.path)));
  try {
    validateStudy(loaded.spec, { text: file.text, path: file.path, source: loaded.source });
  } catch (error) {
    if (error instanceof SpecError && missing.length > 0)
      throw new SpecError(error.file, [...error.problems, ...missing]);
    throw error;
  }
  if (missing.length > 0) throw new SpecError(file.path, missing);
  return loaded;
}

/**
 * Throws a SpecError listing every facet value and plugin setting the registries do not accept.
 * `file.source` is the spec's located YAML when the caller has it (else the text is parsed again).
 */
export function validateStudy(spec: StudySpec, file: { text: string; path: string; source?: SpecSource }): void {
  const source = file.source ?? specSource(file.text, file.path);
  const problems = [
    ...facetProblems(spec, source),
    ...facetSpecProblems(spec, source),
    ...modelProblems(spec, source, dirname(resolve(file.path))),
    ...benchmarkProblems(spec, source),
    ...scoringProblems(spec, source),
    ...unjudgedOpenEndedProblems(spec, source),
    ...agentsProblems(spec, source, dirname(resolve(file.path))),
    ...familyProblems(spec).map((p) => problem(source, p.path, p.message, p.atKey)),
  ];
  if (problems.length > 0) throw new SpecError(file.path, problems);
}

function facetProblems(spec: StudySpec, source: SpecSource): SpecProblem[] {
  return Object.entries(spec.conditions.facets).flatMap(([name, values]) => {
    const path = ["conditions", "facets", name];
    if (!facets.has(name))
      return [unknownName(source, path, { what: "facet", found: name, known: facets.names(), atKey: true })];
    return values.flatMap((value, i) => facetValueProblems(name, value, [...path, i], source));
  });
}

function facetValueProblems(facetId: string, value: FacetValue, path: PathSegment[], source: SpecSource) {
  const facet = facets.get(facetId);
  const name = facetName(value);
  const known = facet.knownValues();
  if (!known.includes(name) && !facet.acceptsCustom?.(value))
    return [unknownName(source, path, { what: facetId, found: name, known: [...known] })];
  const schema = facet.settingsSchema?.(name);
  const settings = facetSettings(value);
  if (schema) return settingsProblems(schema, settings, path, source);
  return Object.keys(settings).map((key) =>
    problem(source, [...path, key], `facet '${facetId}' value '${name}' takes no settings, found '${key}'`, true),
  );
}

/** What each facet checks against the rest of the spec (an exemplar pool, a model's variants). */
function facetSpecProblems(spec: StudySpec, source: SpecSource): SpecProblem[] {
  return Object.keys(spec.conditions.facets)
    .filter((name) => facets.has(name))
    .flatMap((name) => facets.get(name).specProblems?.(spec) ?? [])
    .map((p) => problem(source, p.path, p.message));
}

/** The subject models, and the judges given as model entries (not as ids of subject models). */
function modelProblems(spec: StudySpec, source: SpecSource, specDir: string): SpecProblem[] {
  const judges = (spec.scoring?.judges ?? []).map((judge, i) => [judge, ["scoring", "judges", i]] as const);
  const validationJudge = spec.scoring?.validation?.judge;
  return [
    ...spec.models.map((model, i) => [model, ["models", i]] as const),
    ...judges,
    ...(validationJudge ? [[validationJudge, ["scoring", "validation", "judge"]] as const] : []),
  ].flatMap(([entry, path]) =>
    typeof entry === "string" ? [] : modelEntryProblems(entry, [...path], source, specDir),
  );
}

function modelEntryProblems(model: ModelSpec, path: PathSegment[], source: SpecSource, specDir: string): SpecProblem[] {
  if (!providers.has(model.provider))
    return [
      unknownName(source, [...path, "provider"], { what: "provider", found: model.provider, known: providers.names() }),
    ];
  const descriptor = providers.get(model.provider);
  const schema = descriptor.optionsSchema;
  const optionProblems =
    model.options === undefined
      ? []
      : schema
        ? settingsProblems(schema, model.options, [...path, "options"], source)
        : Object.keys(model.options).map((key) =>
            problem(
              source,
              [...path, "options", key],
              `provider '${model.provider}' takes no options, found '${key}'`,
              true,
            ),
          );
  // Checks that need valid options (a model file resolved against options.base_dir) run after them.
  if (optionProblems.length > 0) return optionProblems;
  return (descriptor.specProblems?.(model, { specDir }) ?? []).map((p) =>
    problem(source, [...path, ...p.path], p.message),
  );
}

/** The agent tools named in `agents.tools`, and the web backend's name and settings. */
function agentsProblems(spec: StudySpec, source: SpecSource, specDir: string): SpecProblem[] {
  if (spec.agents === undefined) return [];
  const toolProblems = (spec.agents.tools ?? []).flatMap((name, i) =>
    tools.has(name)
      ? []
      : [unknownName(source, ["agents", "tools", i], { what: "tool", found: name, known: tools.names() })],
  );
  const web = spec.agents.web;
  if (web === undefined) return toolProblems;
  const path = ["agents", "web"];
  if (!webBackends.has(web.backend))
    return [
      ...toolProblems,
      unknownName(source, [...path, "backend"], {
        what: "web backend",
        found: web.backend,
        known: webBackends.names(),
      }),
    ];
  const { backend: _, ...settings } = web;
  const descriptor = webBackends.get(web.backend);
  const invalid = settingsProblems(descriptor.settingsSchema, settings, path, source);
  if (invalid.length > 0) return [...toolProblems, ...invalid];
  const placed = (descriptor.specProblems?.(settings, { specDir }) ?? []).map((p) =>
    problem(source, [...path, p.key], p.message),
  );
  return [...toolProblems, ...placed];
}

function benchmarkProblems(spec: StudySpec, source: SpecSource): SpecProblem[] {
  return spec.benchmarks.flatMap((benchmark, i) => {
    const path = ["benchmarks", i];
    if (!datasetLoaders.has(benchmark.loader))
      return [
        unknownName(source, [...path, "loader"], {
          what: "dataset loader",
          found: benchmark.loader,
          known: datasetLoaders.names(),
        }),
      ];
    const schema = datasetLoaders.get(benchmark.loader).optionsSchema ?? COMMON_LOADER_OPTIONS;
    if (benchmark.options === undefined) return [];
    return settingsProblems(schema, benchmark.options, [...path, "options"], source);
  });
}

/** Benchmarks whose local source does not exist (the spec read from its file: relative to its folder). */
function sourceProblems(spec: StudySpec, source: SpecSource, specDir: string): SpecProblem[] {
  return spec.benchmarks.flatMap((benchmark, i) => {
    const missing = missingSource(benchmark.source, specDir);
    return missing ? [problem(source, ["benchmarks", i, "source"], missing)] : [];
  });
}

/** Why a local source path (relative to the spec's folder) cannot be read; URLs are checked when fetched. */
function missingSource(sourcePath: string | undefined, specDir: string): string | undefined {
  if (sourcePath === undefined || sourcePath === "" || /^[a-z][a-z0-9+.-]*:\/\//i.test(sourcePath)) return undefined;
  const path = resolve(specDir, sourcePath);
  if (!existsSync(path)) return `source not found: ${path} (a relative path is read from the spec's folder)`;
  try {
    readablePathKind(path);
    return undefined;
  } catch (error) {
    if (error instanceof UnreadablePathError) return error.message;
    throw error;
  }
}

/** Unknown loader names in the spec's raw YAML, for a spec the schema already refused. */
function unknownLoaderProblems(source: SpecSource): SpecProblem[] {
  const benchmarks = (source.data as { benchmarks?: unknown } | null)?.benchmarks;
  if (!Array.isArray(benchmarks)) return [];
  return benchmarks.flatMap((benchmark, i) => {
    const loader = (benchmark as { loader?: unknown } | null)?.loader;
    if (typeof loader !== "string" || loader === "" || datasetLoaders.has(loader)) return [];
    return [
      unknownName(source, ["benchmarks", i, "loader"], {
        what: "dataset loader",
        found: loader,
        known: datasetLoaders.names(),
      }),
    ];
  });
}

function scoringProblems(spec: StudySpec, source: SpecSource): SpecProblem[] {
  const scoring = spec.scoring;
  if (!scoring) return [];
  const problems: SpecProblem[] = [];
  const scorer = (name: string, path: PathSegment[]) => {
    if (!scorers.has(name))
      problems.push(unknownName(source, path, { what: "scorer", found: name, known: scorers.names() }));
  };
  if (scoring.default !== undefined) scorer(scoring.default, ["scoring", "default"]);
  const benchmarkIds = spec.benchmarks.map((b) => b.id);
  for (const [benchmark, name] of Object.entries(scoring.per_benchmark ?? {})) {
    const path = ["scoring", "per_benchmark", benchmark];
    if (!benchmarkIds.includes(benchmark))
      problems.push(
        unknownName(source, path, { what: "benchmark id", found: benchmark, known: benchmarkIds, atKey: true }),
      );
    scorer(name, path);
  }
  // Rubric options (scoring.rubrics.<id>), checked against the rubric's own schema.
  for (const [id, options] of Object.entries(scoring.rubrics ?? {})) {
    const path = ["scoring", "rubrics", id];
    if (!judgeRubrics.has(id)) {
      problems.push(
        unknownName(source, path, { what: "judge rubric", found: id, known: judgeRubrics.names(), atKey: true }),
      );
      continue;
    }
    const schema = judgeRubrics.get(id).optionsSchema;
    if (schema) problems.push(...settingsProblems(schema, options, path, source));
    else
      problems.push(
        ...Object.keys(options).map((key) =>
          problem(source, [...path, key], `judge rubric '${id}' takes no options, found '${key}'`, true),
        ),
      );
  }
  return problems;
}

/**
 * Open-ended free-form trials of a benchmark whose safe answer is not a fixed string (its loader
 * declares `meta.judgeRequired`) need a judge: refused without `scoring.judges` unless the spec
 * names their scorer explicitly (`scoring.per_benchmark.<id>` or `scoring.default`). A benchmark
 * has open-ended trials when the `format` facet lists a value other than `mc`; without the facet,
 * when its source is judged (`meta.scoring: judge`, items without options, rendered open-ended).
 */
function unjudgedOpenEndedProblems(spec: StudySpec, source: SpecSource): SpecProblem[] {
  if ((spec.scoring?.judges ?? []).length > 0 || spec.scoring?.default !== undefined) return [];
  const facetValues = spec.conditions.facets;
  const paths = (facetValues.scoring_path ?? []).map((v) => facetName(v));
  if (paths.length > 0 && !paths.includes("free_form")) return [];
  const formats = facetValues.format?.map((v) => facetName(v));
  return spec.benchmarks.flatMap((benchmark, i) => {
    if (!datasetLoaders.has(benchmark.loader) || spec.scoring?.per_benchmark?.[benchmark.id] !== undefined) return [];
    const meta = datasetLoaders.get(benchmark.loader).meta;
    if (!meta.judgeRequired || meta.judgeRubric === null) return [];
    const open = formats === undefined ? (meta.scoring === "judge" ? ["oe"] : []) : formats.filter((f) => f !== "mc");
    if (open.length === 0) return [];
    return [
      problem(
        source,
        ["benchmarks", i, "loader"],
        `benchmark '${benchmark.id}' (loader ${benchmark.loader}) has open-ended trials (format ${open.join(", ")}) ` +
          `whose safe answer is not a fixed string: they need scorer 'judge' with rubric '${meta.judgeRubric}'; ` +
          `add scoring.judges, or name a deterministic scorer for them explicitly ` +
          `(scoring.per_benchmark.${benchmark.id}: ${meta.scorers.open})`,
      ),
    ];
  });
}

function settingsProblems(schema: z.ZodType, settings: unknown, path: PathSegment[], source: SpecSource) {
  // Parsed once per spec, so without zod's compiled fast path (as the spec itself, spec-loader.ts).
  const parsed = schema.safeParse(settings, { jitless: true });
  return parsed.success ? [] : zodProblems(parsed.error.issues, path, source, schema);
}

/** "unknown <what> 'x' (did you mean 'y'?); known: a, b", at the value or, for a key, at the key. */
function unknownName(
  source: SpecSource,
  path: PathSegment[],
  /** What kind of name it is, the name found, the names there are, and whether the problem sits at the key. */
  name: { what: string; found: string; known: string[]; atKey?: boolean },
): SpecProblem {
  const { what, found, known, atKey = false } = name;
  const hint = closest(found, known);
  const text = `unknown ${what} '${found}'${hint ? ` (did you mean '${hint}'?)` : ""}; known: ${known.join(", ")}`;
  return problem(source, path, text, atKey);
}

function problem(source: SpecSource, path: PathSegment[], text: string, atKey = false): SpecProblem {
  return { ...source.locate(path, atKey), message: `at YAML path ${formatPath(path)}: ${text}` };
}
