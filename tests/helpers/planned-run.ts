/**
 * A child process for the planning crash test: `parallax run`'s runStudy with a small planning
 * batch, so a short design is stored in many batches while it executes.
 * Usage: node --import tsx tests/helpers/planned-run.ts SPEC OUT PLAN_BATCH
 */
import { runStudy } from "../../src/run/execute/run-study.js";

const [specPath, outDir, planBatch] = process.argv.slice(2);
const result = await runStudy({ specPath, outDir, env: process.env, planBatch: Number(planBatch) });
process.stdout.write(`${JSON.stringify(result.counts)}\n`);
