/** Small studies for the scaffold tests: a spec in a temp dir, run through the real runner. */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { CallRecord } from "../../src/contracts/trial.js";
import { runStudy } from "../../src/run/execute/run-study.js";
import { openStore } from "../../src/run/store/open.js";
import type { TrialRow } from "../../src/run/store/types.js";

const COLOURS = ["red", "green", "blue", "amber", "violet", "silver"];

/** `count` invented MC items with four options each; gold at k mod 4. */
export function itemsYaml(count: number): string {
  return Array.from({ length: count }, (_, i) => {
    const k = i + 1;
    const options = ["north", "south", "east", "west"].map((w) => `${w} gate ${k}`);
    return [
      `      - id: s${String(k).padStart(3, "0")}`,
      `        stem: Through which gate does the ${COLOURS[k % COLOURS.length]} courier number ${k} leave the city?`,
      `        options: [${options.join(", ")}]`,
      `        gold_index: ${k % 4}`,
    ].join("\n");
  }).join("\n");
}

export interface StudyOptions {
  models: string;
  facets: string;
  items: string;
  concurrency?: number;
}

export function writeSpec(options: StudyOptions): { specPath: string; outDir: string } {
  const dir = mkdtempSync(join(tmpdir(), "parallax-scaffolds-"));
  const specPath = join(dir, "spec.yaml");
  const yaml = `study: scaffold-test
seed: 5
models:
${options.models}
benchmarks:
  - id: gates
    loader: inline
    items:
${options.items}
conditions:
  facets:
${options.facets}
execution:
  concurrency: ${options.concurrency ?? 4}
  max_retries: 0
`;
  writeFileSync(specPath, yaml);
  return { specPath, outDir: join(dir, "out") };
}

export interface StudyResult {
  trials: TrialRow[];
  calls: CallRecord[];
  callsOf(trialId: string): CallRecord[];
}

/** Runs the spec through runStudy and reads back every trial and call from the store. */
export async function runAndRead(options: StudyOptions): Promise<StudyResult> {
  const { specPath, outDir } = writeSpec(options);
  await runStudy({ specPath, outDir, env: {} });
  const store = await openStore(outDir);
  try {
    const run = (await store.getRun())!;
    const trials = await store.listTrials(run.id);
    const calls = await store.listCalls(run.id);
    return { trials, calls, callsOf: (id) => calls.filter((c) => c.trialId === id) };
  } finally {
    await store.close();
  }
}

export function scaffoldOf(trial: TrialRow): string {
  const value = trial.condition.scaffold;
  return typeof value === "object" ? value.name : String(value);
}

export function accuracyBy(trials: TrialRow[], key: (t: TrialRow) => string): Map<string, number> {
  const sums = new Map<string, { n: number; correct: number }>();
  for (const trial of trials) {
    const entry = sums.get(key(trial)) ?? { n: 0, correct: 0 };
    entry.n++;
    entry.correct += trial.outcome?.score === 1 ? 1 : 0;
    sums.set(key(trial), entry);
  }
  return new Map([...sums].map(([k, v]) => [k, v.correct / v.n]));
}

/**
 * The roles a scaffold's transcript must have, derived from its settings and from what the
 * recorded replies decided (a critic verdict, a final answer, a parsed decomposition).
 */
export function expectedRoles(scaffold: string, settings: Record<string, unknown>, calls: CallRecord[]): string[] {
  switch (scaffold) {
    case "direct":
      return ["answer"];
    case "cot":
      return ["reason"];
    case "react": {
      const max = Number(settings.max_iterations ?? 5);
      const finalAt = calls.findIndex((c) => /^\s*(final\s+)?answer\s*:|finish\[/im.test(c.responseText ?? ""));
      const steps = finalAt >= 0 && finalAt < max ? finalAt + 1 : max;
      const roles = Array.from({ length: steps }, (_, i) => `step-${i + 1}`);
      return finalAt >= 0 && finalAt < max ? roles : [...roles, "final"];
    }
    case "critic": {
      const rounds = Number(settings.rounds ?? 2);
      const roles = ["answer"];
      for (let round = 1; round <= rounds; round++) {
        roles.push(`critique-${round}`);
        const critique = calls.find((c) => c.role === `critique-${round}`);
        if (critique?.note?.verdict === "approve") break;
        roles.push(`revise-${round}`);
      }
      return roles;
    }
    case "map_reduce":
    case "map_reduce_options": {
      const subtasks = (calls[0]?.note?.subtasks as string[] | undefined) ?? [];
      return ["decompose", ...subtasks.map((_, i) => `map-${i + 1}`), "reduce"];
    }
    case "invocation_chain":
      return settings.intensity === "passthrough" ? ["answer"] : ["chain-1", "chain-2", "chain-3", "chain-4"];
    case "adjudicated":
      return settings.adjudicator === false ? ["answer", "check"] : ["answer", "check", "adjudicate"];
    default:
      throw new Error(`no expectation for scaffold ${scaffold}`);
  }
}

/** Every scaffold, with the settings the tests run it under. */
export const SCAFFOLD_FACET_VALUES = [
  "direct",
  "cot",
  "{name: react, max_iterations: 3}",
  "{name: critic, rounds: 2}",
  "{name: map_reduce, chunks: 3}",
  "{name: map_reduce_options, chunks: 2}",
  "{name: invocation_chain, intensity: aggressive, property: bias}",
  "adjudicated",
];

export function settingsOf(trial: TrialRow): Record<string, unknown> {
  const value = trial.condition.scaffold;
  return typeof value === "object" ? value : {};
}
