import { existsSync, readFileSync } from "node:fs";
import { ensureDirectory, writeOutputFile } from "../../core/output-files.js";
import { refuseUnrunnableDesign } from "../../run/prepare/design-checks.js";
import { join } from "node:path";
import { createStamp, type Deviation, parseStamp, STAMP_FILE } from "../../analysis/index.js";
import { InputError } from "../../core/errors.js";
import { loadSpec } from "../../core/spec-loader.js";
import { loadSpecPlugins } from "../../run/prepare/plugins.js";
import { openStore } from "../../run/store/open.js";
import { prepareStudy } from "../../run/prepare/study.js";

/** Trials already finished in DIR's store (0 when there is no store yet). */
async function finishedTrials(dir: string): Promise<number> {
  if (!existsSync(join(dir, "parallax.db"))) return 0;
  const store = await openStore(dir);
  try {
    const run = await store.getRun();
    return run ? (await store.countByStatus(run.id)).finished : 0;
  } finally {
    await store.close();
  }
}

/**
 * Freezes spec, analysis plan and item manifest before any trial runs. After trials have
 * finished, or over an existing stamp, only --force stamps, and the stamp records why.
 */
export async function preregisterCommand(specPath: string, options: { out?: string; force?: boolean }): Promise<void> {
  await loadSpecPlugins(specPath);
  const outDir = options.out ?? join("runs", loadSpec(specPath).spec.study);
  const study = await prepareStudy(specPath);
  // A design `run` would refuse is not pre-registered.
  refuseUnrunnableDesign(study);
  const now = new Date().toISOString();
  const deviations: Omit<Deviation, "id">[] = [];
  const finished = await finishedTrials(outDir);
  if (finished > 0) {
    if (!options.force) {
      throw new InputError(
        `${outDir} already holds ${finished} finished trial(s): a pre-registration must come before the data. ` +
          "Use --force to stamp anyway; the stamp then records this as a deviation.",
      );
    }
    deviations.push({
      kind: "timing",
      element: "pre-registration timing",
      registered: "stamp before any trial runs",
      implemented: `stamped with --force after ${finished} trial(s) had finished`,
      when: now,
    });
  }
  const stampPath = join(outDir, STAMP_FILE);
  if (existsSync(stampPath)) {
    const previous = parseStamp(readFileSync(stampPath, "utf8"), stampPath);
    if (!options.force) {
      throw new InputError(
        `${stampPath} already exists (stamp ${previous.hashes.stamp.slice(0, 16)}, ${previous.createdAt}); ` +
          "use --force to re-stamp, which is recorded as a deviation",
      );
    }
    deviations.push(...previous.deviations.map(({ id: _id, ...d }) => d), {
      kind: "stamp",
      element: "pre-registration stamp",
      registered: `stamp ${previous.hashes.stamp} of ${previous.createdAt}`,
      implemented: "replaced with --force",
      when: now,
    });
  }
  const stamp = createStamp(study.spec, study.manifest, now, deviations);
  ensureDirectory(outDir, "study directory");
  writeOutputFile(stampPath, `${JSON.stringify(stamp, null, 2)}\n`, "pre-registration stamp");
  const lines = [
    `pre-registered ${study.spec.study} at ${now}`,
    `stamp ${stamp.hashes.stamp}`,
    `  spec ${stamp.hashes.spec}`,
    `  analysis plan ${stamp.hashes.analysisPlan}`,
    `  item manifest ${stamp.hashes.manifest} (${study.manifest.benchmarks.reduce((n, b) => n + b.items.length, 0)} items)`,
    ...stamp.deviations.map((d) => `  deviation ${d.id}: ${d.implemented}`),
    `wrote ${stampPath}; run with: parallax run ${specPath} --out ${outDir}`,
  ];
  process.stdout.write(`${lines.join("\n")}\n`);
}
