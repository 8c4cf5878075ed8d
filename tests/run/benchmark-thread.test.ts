/**
 * A run prepares its benchmarks on a worker thread (run/prepare/benchmark-thread.ts): the study it
 * gets must be the one preparing on the calling thread gives (items, manifest, drawn exemplars and
 * the set-aside pools' stored rows), the whole item lists must never be built on the calling
 * thread, a problem of a source must reach the user exactly as it does without threads (class,
 * exit code, located message), benchmarks sharing a URL source download it once into the cache,
 * and a failure on the worker must fail the run, not hang it (a worker that exits or cannot load
 * its module: tests/stats/worker-pool.test.ts).
 */
import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { InputError } from "../../src/core/errors.js";
import { SpecError } from "../../src/core/spec-problems.js";
import { datasetLoaders } from "../../src/datasets/registry.js";
import { drawnPools, setAsidePool } from "../../src/run/prepare/exemplars.js";
import { benchmarkThread } from "../../src/run/prepare/benchmark-thread.js";
import { type PreparedStudy, prepareStudy } from "../../src/run/prepare/study.js";
import { decodeItemLines } from "../../src/run/store/run-items.js";

/** Our own MMLU-format questions (headerless CSV: question, four options, answer letter). */
function writeCsv(dir: string, name: string, count: number): void {
  const rows = Array.from({ length: count }, (_, i) => {
    const options = ["north", "south", "east", "west"].map((w) => `${w} ${i}`);
    return [`"Which way does demo sign ${i} point, ""${name}""?"`, ...options, "ABCD"[i % 4]].join(",");
  });
  writeFileSync(join(dir, `${name}_test.csv`), `${rows.join("\n")}\n`);
}

/** Two benchmarks, each with a pool drawn from its own file, and a few_shot facet that draws. */
function writeStudy(options: { badRow?: boolean } = {}): string {
  const dir = mkdtempSync(join(tmpdir(), "parallax-benchmark-thread-"));
  writeCsv(dir, "compass", 1_200);
  writeCsv(dir, "dial", 300);
  // A row of three fields where the loader expects six.
  if (options.badRow) writeFileSync(join(dir, "dial_test.csv"), "first,second,third\n", { flag: "a" });
  const specPath = join(dir, "study.yaml");
  writeFileSync(
    specPath,
    `study: thread-prepared
seed: 5
models:
  - { id: sim-a, provider: sim, model: medium, params: { temperature: 0 } }
benchmarks:
  - id: compass
    loader: mmlu
    source: compass_test.csv
    sample: { n: 40, seed: 11 }
    exemplars: { source: compass_test.csv, exclude_evaluated: true }
  - id: dial
    loader: mmlu
    source: dial_test.csv
    sample: { n: 25, seed: 3 }
    exemplars: { source: dial_test.csv, exclude_evaluated: true }
conditions:
  facets:
    few_shot: ["0", "3", { name: "5", seed: 9 }]
`,
  );
  return specPath;
}

/** Each set-aside pool's stored rows, decoded. */
function asideRows(study: PreparedStudy): Record<string, string[]> {
  return Object.fromEntries(
    [...(study.poolsAside ?? [])].map(([id, aside]) => [
      id,
      aside.batches.flatMap((batch) => decodeItemLines(batch.items)),
    ]),
  );
}

/** Counts the calling thread's loads of the mmlu loader while `work` runs. */
async function mainThreadLoads(work: () => Promise<unknown>): Promise<number> {
  const loader = datasetLoaders.get("mmlu");
  const original = loader.load;
  let loads = 0;
  loader.load = (spec, ctx) => {
    loads++;
    return original.call(loader, spec, ctx);
  };
  try {
    await work();
  } finally {
    loader.load = original;
  }
  return loads;
}

describe("benchmarks prepared on a worker thread", () => {
  it("give the study the calling thread prepares, without loading any item list on it", async () => {
    const specPath = writeStudy();
    let here: PreparedStudy | undefined;
    let threaded: PreparedStudy | undefined;
    const loadsHere = await mainThreadLoads(async () => {
      here = await prepareStudy(specPath);
    });
    const loadsThreaded = await mainThreadLoads(async () => {
      threaded = await prepareStudy(specPath, { setPoolsAside: true });
    });
    assert.ok(here && threaded, "both preparations returned a study");
    assert.ok(loadsHere >= 2, `the calling thread loads each benchmark itself (${loadsHere} loads)`);
    assert.equal(loadsThreaded, 0, "with set-aside pools no benchmark is loaded on the calling thread");
    assert.equal(threaded.manifestHash, here.manifestHash, "the same item manifest");
    assert.deepEqual(threaded.manifest, here.manifest);
    assert.deepEqual(threaded.items, here.items, "the same sampled items");
    assert.deepEqual(threaded.exemplars, drawnPools(here.spec, here.exemplars), "the drawn exemplars of each pool");
    const whole = Object.fromEntries(
      [...here.exemplars].map(([id, pool]) => [
        id,
        setAsidePool(id, pool).batches.flatMap((batch) => decodeItemLines(batch.items)),
      ]),
    );
    assert.deepEqual(asideRows(threaded), whole, "each whole pool set aside as the store's rows");
    for (const aside of threaded.poolsAside?.values() ?? []) {
      for (const batch of aside.batches) assert.ok(Buffer.isBuffer(batch.items), "batches bind as Buffers");
    }
  });

  it("report a source's bad row as the calling thread does: exit 2, at the spec's line", async () => {
    const specPath = writeStudy({ badRow: true });
    const failure = async (setPoolsAside: boolean) => {
      try {
        await prepareStudy(specPath, { setPoolsAside });
      } catch (error) {
        return error;
      }
      assert.fail(`preparing ${specPath} should fail (setPoolsAside ${setPoolsAside})`);
    };
    const here = await failure(false);
    const threaded = await failure(true);
    assert.ok(here instanceof InputError, `the calling thread's error is an InputError: ${String(here)}`);
    assert.ok(threaded instanceof InputError, `the worker's error is rebuilt as an InputError: ${String(threaded)}`);
    assert.equal(threaded.constructor, here.constructor, "the same error class");
    assert.equal(threaded.message, here.message);
    assert.equal(threaded.exitCode, 2, "bad input exits 2");
    assert.match(threaded.message, /study\.yaml:\d+:\d+: benchmarks\[1\]\.source: .*dial_test\.csv.*row 301/);
  });

  it("download a URL source that two benchmarks share into the cache", async () => {
    const dir = mkdtempSync(join(tmpdir(), "parallax-benchmark-thread-url-"));
    writeCsv(dir, "shared", 200);
    const body = readFileSync(join(dir, "shared_test.csv"));
    let downloads = 0;
    const server = createServer((_request, response) => {
      downloads++;
      response.writeHead(200, { "content-length": body.length }).end(body);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/shared_test.csv`;
    const benchmark = (id: string, seed: number) =>
      `  - { id: ${id}, loader: mmlu, source: "${url}", sample: { n: 10, seed: ${seed} } }`;
    const specPath = join(dir, "study.yaml");
    writeFileSync(
      specPath,
      [
        "study: shared-url",
        "models:",
        "  - { id: sim-a, provider: sim, model: medium }",
        "benchmarks:",
        benchmark("first", 1),
        benchmark("second", 2),
        "conditions:",
        "  facets:",
        "    format: [mc]",
        "",
      ].join("\n"),
    );
    try {
      const study = await prepareStudy(specPath, { setPoolsAside: true });
      assert.deepEqual(
        [...study.items.values()].map((items) => items.size),
        [10, 10],
      );
      assert.equal(downloads, 1, "the second benchmark reads the worker's cached download");
      assert.deepEqual(
        readdirSync(join(dir, ".parallax-cache"), { recursive: true }).filter((name) => String(name).endsWith(".part")),
        [],
        "no partial download is left behind",
      );
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("fail, without hanging, when the worker cannot read the spec", { timeout: 60_000 }, async () => {
    const specPath = writeStudy();
    const study = await prepareStudy(specPath);
    // YAML the worker cannot parse: the benchmark's preparation fails with the spec's problem.
    const thread = benchmarkThread({
      spec: study.spec,
      specPath,
      specText: "study: [unclosed",
      context: { baseDir: tmpdir(), cacheDir: tmpdir() },
    });
    try {
      await assert.rejects(thread.prepare(0), SpecError, "the spec's problem, rebuilt as a SpecError");
    } finally {
      await thread.close();
    }
  });
});
