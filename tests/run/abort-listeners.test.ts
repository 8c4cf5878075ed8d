/**
 * Every call in flight listens on the run's one abort signal (its timeout, its place in a rate-limit
 * queue). With more calls in flight than Node's default of ten listeners, a run must not print
 * Node's "possible memory leak" warning to the researcher's terminal.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { runStudy } from "../../src/run/execute/run-study.js";
import { writeDemoSpec } from "../helpers/study.js";

test("a run with more than ten calls in flight prints no listener-leak warning", async () => {
  const warnings: string[] = [];
  const onWarning = (warning: Error) => warnings.push(`${warning.name}: ${warning.message}`);
  process.on("warning", onWarning);
  try {
    const { specPath, outDir } = writeDemoSpec({
      items: 24,
      facets: "    format: [mc]\n    scaffold: [direct, map_reduce]",
      execution: "  concurrency: 16\n  timeout_s: 60",
    });
    const result = await runStudy({ specPath, outDir, env: {} });
    assert.equal(result.counts.finished, 48);
    // Warnings are emitted on the next tick.
    await new Promise((resolve) => setImmediate(resolve));
  } finally {
    process.off("warning", onWarning);
  }
  assert.deepEqual(
    warnings.filter((w) => w.startsWith("MaxListenersExceededWarning")),
    [],
  );
});
