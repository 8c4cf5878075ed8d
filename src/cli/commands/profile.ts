import {
  formatProfile,
  normalizePlan,
  PROFILE_RESAMPLES,
  type ProfileInput,
  profileMarkdown,
  profileSettings,
  profileStudies,
} from "../../analysis/index.js";
import { InputError } from "../../core/errors.js";
import { writeOutputFile } from "../../core/output-files.js";
import { readPlanFile } from "./analyze.js";
import { loadSide } from "./compare.js";

export interface ProfileCommandOptions {
  json?: boolean;
  /** The Markdown card's file (written only when given). */
  out?: string;
  plan?: string;
  scorer?: string;
  /** Item resamples of the score and difference intervals, and draws of each model's GLMM fixed effects. */
  resamples?: number;
  seed?: number;
}

/**
 * `parallax profile DIR...`: the Evaluation Conditions card of the models the studies share, on
 * the items they share. Reads every study, writes nothing but the card given to --out; the plan is
 * --plan, else the first study's own, else the defaults.
 */
export async function profileCommand(targets: string[], options: ProfileCommandOptions): Promise<void> {
  const distinct = new Set(targets);
  if (distinct.size !== targets.length) {
    throw new InputError(`a study is named twice: ${targets.find((t, i) => targets.indexOf(t) !== i)}`);
  }
  const inputs: ProfileInput[] = [];
  let firstPlan: ReturnType<typeof normalizePlan> | undefined;
  for (const target of targets) {
    const side = await loadSide(target, options.scorer);
    firstPlan ??= side.plan;
    inputs.push({ path: target, table: side.table });
  }
  const plan = options.plan ? readPlanFile(options.plan) : (firstPlan ?? normalizePlan(undefined));
  const settings = profileSettings(plan, options.resamples ?? PROFILE_RESAMPLES);
  if (options.seed !== undefined) settings.seed = options.seed;
  const profile = profileStudies(inputs, settings);
  if (options.out) writeOutputFile(options.out, profileMarkdown(profile), "Evaluation Conditions card");
  if (options.json) process.stdout.write(`${JSON.stringify(profile, null, 2)}\n`);
  else {
    process.stdout.write(formatProfile(profile));
    if (options.out) process.stdout.write(`\nwrote ${options.out}\n`);
  }
}
