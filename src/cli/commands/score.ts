import { InputError } from "../../core/errors.js";
import type { CellParseSummary } from "../../run/score/cells.js";
import { openScoringContext } from "../../run/score/context.js";
import { judgeStudy } from "../../run/score/judge-study.js";
import { rescoreStudy } from "../../run/score/rescore.js";
import { unblindStudy } from "../../run/score/unblind.js";
import { JUDGE_SCORER } from "../../scoring/registry.js";
import { agreementLine, kappaReading } from "../../scoring/judge/agreement.js";
import { pEquals } from "../../stats/p-value-text.js";

interface ScoreOptions {
  scorer?: string;
  spec?: string;
  unblind?: boolean;
  rerender?: boolean;
  json?: boolean;
}

/**
 * `parallax score DIR`: re-scores stored trials (default scorers, or --scorer NAME), judges them
 * under blinding (--scorer judge), or unblinds the judge verdicts (--unblind). Never calls the
 * subject model. Prints the parse failures of every cell. Scores are computed against the task
 * each trial was sent (stored with it); a study whose prompts changed since the run is refused
 * unless --rerender asks to score against today's rendering.
 */
export async function scoreCommand(dir: string, options: ScoreOptions): Promise<void> {
  if (options.unblind && options.scorer) throw new InputError("--unblind takes no --scorer");
  if (options.unblind && options.rerender) throw new InputError("--unblind takes no --rerender");
  const context = await openScoringContext(dir, options.spec);
  try {
    if (options.unblind) {
      const result = await unblindStudy(context);
      print(options, result, [
        `unblinded at ${result.unblindedAt}: ${result.scores} judge score(s) linked to their trials`,
      ]);
      return;
    }
    if (options.scorer === JUDGE_SCORER) {
      const result = await judgeStudy(context, {
        env: process.env,
        rerender: options.rerender,
        onProgress: (done, total) => {
          if (done === total || done % 50 === 0) process.stderr.write(`judged ${done}/${total}\n`);
        },
      });
      const g = result.blinding.guessing_check;
      print(options, result, [
        `judged ${result.responses} blinded response(s): ${result.verdicts} verdict(s), ${result.judgeParseFailures} judge parse failure(s)`,
        `mapping sealed: sha256 ${result.blinding.sealed_sha256} at ${result.blinding.sealed_at}`,
        g
          ? `guessing check: ${g.correct}/${g.n} correct (chance ${g.chance.toFixed(2)}), chi2 ${g.chi2.toFixed(2)}, ${pEquals(g.p)}`
          : "guessing check: not applicable (fewer than two configurations)",
        ...result.agreement.per_benchmark.map(
          (r) =>
            `${r.kind === "scorer_vs_judge" ? "scorer-artefact check" : "judge agreement"} ${agreementLine(r)}; ${kappaReading(r)}`,
        ),
        "scores stay blinded until 'parallax score DIR --unblind'",
        ...cellLines(result.cells),
      ]);
      return;
    }
    const result = await rescoreStudy(context, { scorer: options.scorer, rerender: options.rerender });
    print(options, result, [
      `scored ${result.scored} trial(s) of run ${result.runId}` +
        (result.notApplicable > 0 ? ` (${result.notApplicable} without what this scorer reads)` : ""),
      ...taskNotes(result),
      ...cellLines(result.cells),
    ]);
  } finally {
    await context.store.close();
  }
}

function taskNotes(result: { rerendered: number; unrecordedTasks: number }): string[] {
  const notes: string[] = [];
  if (result.rerendered > 0)
    notes.push(
      `note: ${result.rerendered} trial(s) scored against today's rendering, not the task they were sent (--rerender)`,
    );
  if (result.unrecordedTasks > 0)
    notes.push(
      `note: ${result.unrecordedTasks} trial(s) were stored before tasks were recorded; their task was re-rendered from today's code`,
    );
  return notes;
}

function print(options: ScoreOptions, result: unknown, lines: string[]): void {
  process.stdout.write(options.json ? `${JSON.stringify(result, null, 2)}\n` : `${lines.join("\n")}\n`);
}

function cellLines(cells: CellParseSummary[]): string[] {
  if (cells.length === 0) return [];
  return [
    "parse failures per cell (model | condition | benchmark | scorer): failed/n",
    ...cells.map(
      (c) =>
        `  ${c.model} | ${c.condition} | ${c.benchmark} | ${c.scorer}: ${c.parseFailures}/${c.n} (${(100 * c.parseFailureRate).toFixed(1)}%)`,
    ),
  ];
}
