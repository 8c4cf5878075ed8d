import { InputError } from "../../core/errors.js";
import { type CellParseSummary, judgeStudy, openScoringContext, rescoreStudy, unblindStudy } from "../../run/score.js";
import { JUDGE_SCORER } from "../../scoring/registry.js";

interface ScoreOptions {
  scorer?: string;
  spec?: string;
  unblind?: boolean;
  json?: boolean;
}

/**
 * `parallax score DIR`: re-scores stored trials (default scorers, or --scorer NAME), judges them
 * under blinding (--scorer judge), or unblinds the judge verdicts (--unblind). Never calls the
 * subject model. Prints the parse failures of every cell.
 */
export async function scoreCommand(dir: string, options: ScoreOptions): Promise<void> {
  if (options.unblind && options.scorer) throw new InputError("--unblind takes no --scorer");
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
        onProgress: (done, total) => {
          if (done === total || done % 50 === 0) process.stderr.write(`judged ${done}/${total}\n`);
        },
      });
      const g = result.blinding.guessing_check;
      print(options, result, [
        `judged ${result.responses} blinded response(s): ${result.verdicts} verdict(s), ${result.judgeParseFailures} judge parse failure(s)`,
        `mapping sealed: sha256 ${result.blinding.sealed_sha256} at ${result.blinding.sealed_at}`,
        g
          ? `guessing check: ${g.correct}/${g.n} correct (chance ${g.chance.toFixed(2)}), chi2 ${g.chi2.toFixed(2)}, p ${g.p.toFixed(3)}`
          : "guessing check: not applicable (fewer than two configurations)",
        ...result.agreement.per_benchmark.map(
          (r) =>
            `kappa ${r.benchmark} ${r.judges.join(" vs ")}: ${r.kappa.toFixed(3)} [${r.ci[0].toFixed(3)}, ${r.ci[1].toFixed(3)}] (n=${r.n})`,
        ),
        "scores stay blinded until 'parallax score DIR --unblind'",
        ...cellLines(result.cells),
      ]);
      return;
    }
    const result = await rescoreStudy(context, options.scorer);
    print(options, result, [
      `scored ${result.scored} trial(s) of run ${result.runId}` +
        (result.notApplicable > 0 ? ` (${result.notApplicable} without what this scorer reads)` : ""),
      ...cellLines(result.cells),
    ]);
  } finally {
    await context.store.close();
  }
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
