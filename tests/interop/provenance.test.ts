/**
 * The SIMULATED label and the study's provenance travel: every export of a simulated study (CSV,
 * JSONL, Parquet, EEE records and sidecar) carries them; a study imported again from its EEE
 * export prints the banner on every output (import, analyze overview and --full, scorecard.md and
 * .json, the kind cards, the report, status) and exports the provenance chain on; `analyze` of an
 * exported CSV or JSONL prints the banner; and no export of a study of real logs says SIMULATED.
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Ajv } from "ajv";
import { parquetMetadata } from "hyparquet";
import { type StudyProvenance, StudyProvenanceSchema } from "../../src/contracts/provenance.js";
import { parseCsv } from "../../src/datasets/csv.js";
import { SIDECAR_FILE, SidecarSchema } from "../../src/interop/eee/sidecar.js";
import { exportEee } from "../../src/interop/eee/export.js";
import { importLogs } from "../../src/interop/import.js";
import { type ExportFormat, type ExportTable, exportTable } from "../../src/run/export/export.js";
import { exportParquet, PROVENANCE_KEY, SIMULATED_KEY } from "../../src/run/export/parquet.js";
import { runAnalysis } from "../../src/cli/commands/analyze.js";
import { studyProvenance } from "../../src/run/export/provenance.js";
import { runStudy } from "../../src/run/execute/run-study.js";
import { openStore } from "../../src/run/store/open.js";
import type { RunRecord } from "../../src/run/store/types.js";
import { runCli } from "../helpers/cli.js";
import { after, before, describeNeeding, needsPostgres, test } from "../helpers/prerequisites.js";
import { writeDemoSpec } from "../helpers/study.js";
import { interopDir, interopSkip } from "./shared-logs.js";

const demo = writeDemoSpec({ facets: "    scaffold: [direct, critic]", items: 8 });
after(() => rmSync(demo.dir, { recursive: true, force: true }));
const at = (name: string) => join(demo.dir, name);

/** The banner line `analyze` and `import` print, and the label of headings and status. */
const BANNER = /\*\*\* SIMULATED DATA: every response in this study comes from a simulated respondent/;

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => (statSync(join(dir, n)).isDirectory() ? walk(join(dir, n)) : [join(dir, n)]));
}

async function withRun<T>(
  dir: string,
  fn: (store: Awaited<ReturnType<typeof openStore>>, run: RunRecord) => Promise<T>,
) {
  const store = await openStore(dir);
  try {
    return await fn(store, (await store.getRun())!);
  } finally {
    await store.close();
  }
}

/** Both tables of a study in a tidy format, as rows of strings (CSV) or values (JSONL). */
async function exportedRows(dir: string, table: ExportTable, format: ExportFormat): Promise<Record<string, unknown>[]> {
  let text = "";
  await withRun(dir, (store, run) =>
    exportTable(store, { runId: run.id, facets: Object.keys(run.spec.conditions.facets), table, format }, (c) => {
      text += c;
    }),
  );
  if (format === "jsonl")
    return text
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
  const [head, ...records] = parseCsv(text, "export.csv");
  return records.map((r) => Object.fromEntries(head.fields.map((h, i) => [h, r.fields[i]])));
}

async function parquetKv(dir: string, table: ExportTable, file: string): Promise<Map<string, string | undefined>> {
  await withRun(dir, (store, run) =>
    exportParquet(store, { runId: run.id, facets: Object.keys(run.spec.conditions.facets), table }, file),
  );
  const bytes = readFileSync(file);
  const metadata = parquetMetadata(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
  return new Map((metadata.key_value_metadata ?? []).map((kv) => [kv.key, kv.value]));
}

/** Exports to EEE, checks every record against the EEE schemas, and returns the records and sidecar. */
async function eeeExport(dir: string, out: string) {
  await withRun(dir, (store, run) => exportEee({ target: dir, store, run }, out));
  const ajv = new Ajv({ strict: false, allErrors: true });
  const schema = (name: string) => JSON.parse(readFileSync(join(interopDir, "eee", name), "utf8"));
  const validAggregate = ajv.compile(schema("eval.schema.json"));
  const validInstance = ajv.compile(schema("instance_level_eval.schema.json"));
  const files = walk(out);
  const aggregates = files
    .filter((f) => f.endsWith(".json") && !f.endsWith(SIDECAR_FILE))
    .map((f) => JSON.parse(readFileSync(f, "utf8")));
  const instances = files
    .filter((f) => f.endsWith("_samples.jsonl"))
    .flatMap((f) =>
      readFileSync(f, "utf8")
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l)),
    );
  for (const a of aggregates) assert.ok(validAggregate(a), JSON.stringify(validAggregate.errors));
  for (const i of instances) assert.ok(validInstance(i), JSON.stringify(validInstance.errors));
  const sidecar = SidecarSchema.parse(JSON.parse(readFileSync(join(out, SIDECAR_FILE), "utf8")));
  return { files, aggregates, instances, sidecar };
}

/** What every export must say of this run: the provenance fields as columns. */
function expectProvenanceColumns(rows: Record<string, unknown>[], run: RunRecord, simulated: boolean, what: string) {
  assert.ok(rows.length > 0, `${what}: rows exported`);
  for (const row of rows) {
    assert.equal(String(row.simulated), String(simulated), `${what}: simulated on every row`);
    assert.equal(row.parallax_version, run.parallaxVersion, `${what}: parallax_version`);
    assert.equal(row.spec_hash, run.specHash, `${what}: spec_hash`);
  }
}

describeNeeding(interopSkip, "a simulated study", () => {
  let original: RunRecord;
  before(async () => {
    await runStudy({ specPath: demo.specPath, outDir: demo.outDir, env: {} });
    original = await withRun(demo.outDir, async (_s, run) => run);
  });

  test("every CSV and JSONL row (trials and calls) carries simulated and the provenance columns", async () => {
    for (const table of ["trials", "calls"] as const)
      for (const format of ["csv", "jsonl"] as const) {
        const rows = await exportedRows(demo.outDir, table, format);
        expectProvenanceColumns(rows, original, true, `${table} ${format}`);
        for (const row of rows)
          assert.equal(row.imported_from, format === "csv" ? "" : null, `${table} ${format}: an executed run`);
      }
  });

  test("Parquet key-value metadata holds the provenance and the label", async () => {
    for (const table of ["trials", "calls"] as const) {
      const kv = await parquetKv(demo.outDir, table, at(`${table}.parquet`));
      assert.equal(kv.get(SIMULATED_KEY), "true", `${table}: parallax.simulated`);
      const provenance = StudyProvenanceSchema.parse(JSON.parse(kv.get(PROVENANCE_KEY) ?? "null"));
      assert.deepEqual(provenance, {
        study: original.study,
        run_id: original.id,
        simulated: true,
        parallax_version: original.parallaxVersion,
        spec_hash: original.specHash,
        imported_from: null,
        origins: [],
      } satisfies StudyProvenance);
    }
  });

  test("EEE aggregate records, instance records and the sidecar carry it, valid against the EEE schemas", async () => {
    const { aggregates, instances, sidecar } = await eeeExport(demo.outDir, at("eee"));
    assert.ok(aggregates.length > 0 && instances.length > 0, "records written");
    for (const a of aggregates) {
      assert.match(a.source_metadata.source_name, /\(SIMULATED DATA\)$/, "the source's name says SIMULATED");
      assert.deepEqual(a.source_metadata.additional_details, {
        run_id: original.id,
        simulated: "true",
        parallax_version: original.parallaxVersion,
        spec_hash: original.specHash,
      });
    }
    for (const i of instances) assert.equal(i.metadata.simulated, "true", `${i.sample_id}: metadata.simulated`);
    assert.equal(sidecar.provenance?.simulated, true, "the sidecar's provenance");
    assert.equal(sidecar.provenance?.run_id, original.id);
  });

  test("re-imported from its EEE export, every output prints the SIMULATED banner", () => {
    const back = at("back");
    const imported = runCli(["import", "eee", at("eee"), "--out", back]);
    assert.equal(imported.status, 0, imported.stderr);
    assert.match(imported.stdout, BANNER, "import says what it imported");
    const overview = runCli(["analyze", back]);
    assert.equal(overview.status, 0, overview.stderr);
    assert.match(overview.stdout, BANNER, "analyze overview");
    const full = runCli(["analyze", back, "--full"]);
    assert.match(full.stdout, BANNER, "analyze --full");
    assert.match(readFileSync(join(back, "scorecard.md"), "utf8"), /^> \*\*SIMULATED DATA:.*\n\n# .* \(SIMULATED\)$/m);
    const card = JSON.parse(readFileSync(join(back, "scorecard.json"), "utf8"));
    assert.equal(card.simulated, true, "scorecard.json");
    assert.match(card.notice, /^SIMULATED DATA/);
    const report = runCli(["report", back]);
    assert.equal(report.status, 0, report.stderr);
    assert.match(report.stdout, /\(SIMULATED data\)/);
    assert.match(readFileSync(join(back, "report.html"), "utf8"), /class="simulated" role="alert">SIMULATED DATA/);
    const status = runCli(["status", back]);
    assert.match(status.stdout, /^run \S+ \(study \S+\) \[SIMULATED responses\]$/m, status.stdout);
    assert.match(
      status.stdout,
      new RegExp(
        `^imported from eee logs, exported from study ${original.study} \\(run ${original.id}, Parallax [^,]+, SIMULATED\\)$`,
        "m",
      ),
    );
  });

  test("the re-imported study's own exports carry the chain back to the simulated run", async () => {
    const back = at("back");
    const again = await withRun(back, async (_s, run) => run);
    const { aggregates, instances, sidecar } = await eeeExport(back, at("eee-again"));
    assert.equal(sidecar.provenance?.simulated, true);
    assert.equal(sidecar.provenance?.imported_from, "eee");
    assert.deepEqual(
      sidecar.provenance?.origins.map((o) => [o.run_id, o.spec_hash, o.simulated]),
      [[original.id, original.specHash, true]],
    );
    assert.ok(
      instances.every((i) => i.metadata.simulated === "true"),
      "each imported trial keeps its label",
    );
    for (const a of aggregates) assert.equal(a.source_metadata.additional_details.imported_from, "eee");
    expectProvenanceColumns(await exportedRows(back, "trials", "csv"), again, true, "re-imported trials csv");
    assert.equal((await parquetKv(back, "trials", at("again.parquet"))).get(SIMULATED_KEY), "true");
  });

  test("imported into PostgreSQL, the run keeps its origin and its analysis says SIMULATED", {
    skip: needsPostgres(),
  }, async () => {
    const url = `${process.env.PARALLAX_TEST_PG_URL}?schema=provenance_${randomBytes(4).toString("hex")}`;
    await importLogs({ format: "eee", paths: [at("eee")], target: url });
    const provenance = await withRun(url, (store, run) => studyProvenance(store, run));
    assert.equal(provenance.simulated, true, "simulated");
    assert.equal(provenance.imported_from, "eee");
    assert.deepEqual(
      provenance.origins.map((o) => o.run_id),
      [original.id],
      "the origin is stored with the run",
    );
    const { record } = await runAnalysis(url, {});
    assert.equal(record.analysis.meta.simulated, true, "the analysis of the PostgreSQL study is labelled");
  });

  test("analyze of an exported CSV or JSONL table prints the banner", async () => {
    for (const format of ["csv", "jsonl"] as const) {
      const file = at(`trials.${format}`);
      let text = "";
      await withRun(demo.outDir, (store, run) =>
        exportTable(
          store,
          { runId: run.id, facets: Object.keys(run.spec.conditions.facets), table: "trials", format },
          (c) => {
            text += c;
          },
        ),
      );
      writeFileSync(file, text);
      const result = runCli(["analyze", file, "--out", at(`analysis-${format}.json`)]);
      assert.match(result.stdout, BANNER, `${format}: ${result.stderr}`);
    }
  });

  test("an export whose records lost their label is still labelled by its sidecar; one with neither is not", async () => {
    const strip = (dir: string, dropSidecarProvenance: boolean) => {
      for (const f of walk(dir)) {
        if (f.endsWith("_samples.jsonl")) {
          const lines = readFileSync(f, "utf8").split("\n").filter(Boolean);
          const stripped = lines.map((l) => {
            const r = JSON.parse(l);
            delete r.metadata.simulated;
            return JSON.stringify(r);
          });
          writeFileSync(f, `${stripped.join("\n")}\n`);
        } else if (f.endsWith(SIDECAR_FILE) && dropSidecarProvenance) {
          const { provenance: _dropped, ...rest } = JSON.parse(readFileSync(f, "utf8"));
          writeFileSync(f, JSON.stringify(rest));
        }
      }
    };
    for (const [name, dropSidecar, simulated] of [
      ["sidecar-only", false, true],
      ["unlabelled", true, false],
    ] as const) {
      const copy = at(`eee-${name}`);
      mkdirSync(copy);
      await withRun(demo.outDir, (store, run) => exportEee({ target: demo.outDir, store, run }, copy));
      strip(copy, dropSidecar);
      const dir = at(`back-${name}`);
      await importLogs({ format: "eee", paths: [copy], target: dir });
      const rows = await exportedRows(dir, "trials", "jsonl");
      assert.ok(
        rows.every((r) => r.simulated === simulated),
        `${name}: every imported trial ${simulated ? "is" : "is not"} simulated`,
      );
    }
  });
});

describeNeeding(interopSkip, "a study of real logs", () => {
  const real = at("real");
  before(async () => {
    await importLogs({ format: "inspect", paths: [join(interopDir, "inspect", "log_streaming.eval")], target: real });
  });

  test("no export says SIMULATED, and each says where the run was imported from", async () => {
    const run = await withRun(real, async (_s, r) => r);
    for (const table of ["trials", "calls"] as const) {
      const rows = await exportedRows(real, table, "jsonl");
      expectProvenanceColumns(rows, run, false, `${table} jsonl`);
      assert.ok(
        rows.every((r) => r.imported_from === "inspect"),
        `${table}: imported_from`,
      );
      const kv = await parquetKv(real, table, at(`real-${table}.parquet`));
      assert.equal(kv.get(SIMULATED_KEY), "false", `${table}: parallax.simulated`);
    }
    const { files, aggregates, instances, sidecar } = await eeeExport(real, at("real-eee"));
    for (const f of files) assert.doesNotMatch(readFileSync(f, "utf8"), /SIMULATED/, `${f} says SIMULATED`);
    for (const a of aggregates) assert.equal(a.source_metadata.additional_details.simulated, "false");
    assert.ok(
      instances.every((i) => i.metadata.simulated === "false"),
      "no instance is simulated",
    );
    assert.equal(sidecar.provenance?.simulated, false);
    const analyzed = runCli(["analyze", real]);
    assert.doesNotMatch(analyzed.stdout, /SIMULATED/, "analyze prints no banner");
    assert.doesNotMatch(runCli(["status", real]).stdout, /SIMULATED/, "status prints no label");
  });
});
