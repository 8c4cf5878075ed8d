import { conditionLabel } from "../../run/conditions.js";
import { openStudyDir } from "../study-dir.js";

interface CellStatus {
  model: string;
  condition: string;
  benchmark: string;
  finished: number;
  errored: number;
  pending: number;
  correct: number;
  parseFailures: number;
}

export async function statusCommand(dir: string, options: { json?: boolean }): Promise<void> {
  const { store, run } = await openStudyDir(dir);
  try {
    const counts = await store.countByStatus(run.id);
    const buckets: Record<string, number> = {};
    const cells = new Map<string, CellStatus>();
    let simulated = false;
    let afterId: string | undefined;
    for (;;) {
      const page = await store.listTrials(run.id, { limit: 2_000, afterId });
      if (page.length === 0) break;
      for (const trial of page) {
        const condition = conditionLabel(trial.condition);
        const key = `${trial.modelId}\u0000${condition}\u0000${trial.benchmarkId}`;
        const cell = cells.get(key) ?? {
          model: trial.modelId,
          condition,
          benchmark: trial.benchmarkId,
          finished: 0,
          errored: 0,
          pending: 0,
          correct: 0,
          parseFailures: 0,
        };
        cell[trial.status]++;
        if (trial.outcome?.score === 1) cell.correct++;
        if (trial.outcome?.parseStatus === "failed") cell.parseFailures++;
        if (trial.outcome?.failureBucket) buckets[trial.outcome.failureBucket] = (buckets[trial.outcome.failureBucket] ?? 0) + 1;
        simulated ||= trial.outcome?.simulated ?? false;
        cells.set(key, cell);
      }
      afterId = page[page.length - 1].id;
    }
    const report = { run: run.id, study: run.study, counts, failureBuckets: buckets, simulated, cells: [...cells.values()] };
    if (options.json) {
      process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
      return;
    }
    process.stdout.write(formatStatus(report));
  } finally {
    await store.close();
  }
}

function formatStatus(report: {
  run: string;
  study: string;
  counts: Record<string, number>;
  failureBuckets: Record<string, number>;
  simulated: boolean;
  cells: CellStatus[];
}): string {
  const total = report.counts.finished + report.counts.errored + report.counts.pending;
  const lines = [
    `run ${report.run} (study ${report.study})${report.simulated ? " [SIMULATED responses]" : ""}`,
    `trials: ${total} | finished ${report.counts.finished} | errored ${report.counts.errored} | pending ${report.counts.pending}`,
  ];
  const buckets = Object.entries(report.failureBuckets);
  if (buckets.length > 0) lines.push(`failure buckets: ${buckets.map(([b, n]) => `${b} ${n}`).join(", ")}`);
  lines.push("", "model | condition | benchmark | finished | errored | pending | accuracy (finished) | parse failures");
  for (const c of report.cells) {
    const accuracy = c.finished > 0 ? (c.correct / c.finished).toFixed(3) : "-";
    lines.push(
      `${c.model} | ${c.condition} | ${c.benchmark} | ${c.finished} | ${c.errored} | ${c.pending} | ${accuracy} | ${c.parseFailures}`,
    );
  }
  return `${lines.join("\n")}\n`;
}
