/**
 * npm run bench:interop-jsonl — a large lm-eval samples JSONL imported under a memory check.
 * Writes (as a stream, in a temp folder) a results_*.json and a samples_*.jsonl of about
 * `-- --mb N` MiB (default 1024: past the longest string V8 holds, so the file must be read line
 * by line), imports it into a study directory and reports wall time, rows and the peak resident
 * memory; exits 1 when the peak passes `-- --max-rss-mb M` (default 1024). Prints Markdown.
 */
import { createWriteStream, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { once } from "node:events";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { importLogs } from "../src/interop/import.js";

const { values } = parseArgs({
  options: { mb: { type: "string", default: "1024" }, "max-rss-mb": { type: "string", default: "1024" } },
});
const targetBytes = Number(values.mb) * 1024 * 1024;
const maxRssMb = Number(values["max-rss-mb"]);
const dir = mkdtempSync(join(tmpdir(), "parallax-bench-jsonl-"));
const stamp = "2026-01-01T00-00-00.000000";
const task = "invented_boxes";

async function writeSamples(file: string): Promise<number> {
  const out = createWriteStream(file);
  // An invented prompt of about 8 KiB per row, as few-shot prompts are.
  const filler = "Count the boxes on the shelf and say how many marbles they hold in all. ".repeat(110);
  let bytes = 0;
  let rows = 0;
  while (bytes < targetBytes) {
    const row = {
      doc_id: rows,
      doc: { question: `Invented question ${rows}` },
      target: String(rows % 7),
      arguments: { gen_args_0: { arg_0: `${filler}\nQuestion ${rows}: how many?`, arg_1: {} } },
      resps: [[String((rows * 31) % 7)]],
      filtered_resps: [String((rows * 31) % 7)],
      filter: "none",
      metrics: ["exact_match"],
      exact_match: (rows * 31) % 7 === rows % 7 ? 1 : 0,
    };
    const line = `${JSON.stringify(row)}\n`;
    bytes += Buffer.byteLength(line);
    rows++;
    if (!out.write(line)) await once(out, "drain");
  }
  out.end();
  await once(out, "finish");
  return rows;
}

async function main(): Promise<void> {
  const samplesFile = join(dir, `samples_${task}_${stamp}.jsonl`);
  const rows = await writeSamples(samplesFile);
  writeFileSync(
    join(dir, `results_${stamp}.json`),
    JSON.stringify({
      results: { [task]: { "exact_match,none": 0.14 } },
      "n-samples": { [task]: { original: rows, effective: rows } },
      model_name: "invented/model",
    }),
  );
  const start = performance.now();
  const result = await importLogs({ format: "lm-eval", paths: [dir], target: join(dir, "study") });
  const seconds = (performance.now() - start) / 1000;
  const peakMb = process.resourceUsage().maxRSS / 1024;
  const fileMb = statSync(samplesFile).size / 1024 / 1024;
  console.log("| samples file | rows | trials | seconds | peak RSS | limit |");
  console.log("| --- | --- | --- | --- | --- | --- |");
  console.log(
    `| ${fileMb.toFixed(0)} MiB | ${rows} | ${result.trials.length} | ${seconds.toFixed(1)} | ${peakMb.toFixed(0)} MiB | ${maxRssMb} MiB |`,
  );
  if (peakMb > maxRssMb) {
    console.error(`peak resident memory ${peakMb.toFixed(0)} MiB is over ${maxRssMb} MiB`);
    process.exitCode = 1;
  }
}

main()
  .catch((error) => {
    console.error(error);
    process.exitCode = 2;
  })
  .finally(() => rmSync(dir, { recursive: true, force: true }));
