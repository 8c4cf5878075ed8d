/**
 * The tool sandbox worked: a trial errored in the "sandbox" bucket had a tool call that bubblewrap
 * failed to run (missing, broken, its setup failing), so its cell lacks trials for a reason of the
 * machine's, not the model's. Any such trial fails its cell until a run with a working sandbox
 * retries it (errored trials are retried by the next `run`). An imported table, whose tools never
 * ran in a Parallax sandbox, passes.
 */
import { type CellFinding, registerIntegrityCheck } from "./registry.js";

export const SANDBOX_BUCKET = "sandbox";

registerIntegrityCheck({
  name: "sandbox",
  title: "Tool sandbox worked",
  run({ cells, facts }) {
    const threshold = "any trial errored because the tool sandbox failed";
    const buckets = facts.failureBuckets;
    // An imported table ran no tool call in a Parallax sandbox.
    if (buckets === undefined)
      return { threshold, detail: "no sandboxed run recorded (an imported table)", findings: [] };
    const findings: CellFinding[] = [];
    let total = 0;
    for (const { cell, rows } of cells.values()) {
      const failed = rows.filter(
        (r) => r.errored && r.trialId !== null && buckets.get(r.trialId) === SANDBOX_BUCKET,
      ).length;
      if (failed === 0) continue;
      total += failed;
      findings.push({
        ...cell,
        status: "fail",
        reason: `${failed} trial(s) errored because the tool sandbox failed; \`run\` again with a working bubblewrap to retry them`,
      });
    }
    return { threshold, detail: `${total} trial(s) errored in the sandbox`, findings };
  },
});
