#!/usr/bin/env node
/**
 * Output-identity check: the outputs a user sees, produced by one checkout's built CLI, saved to
 * a folder and compared byte for byte with another build's (a refactor must leave them unchanged).
 * Plain Node ESM with no build step of its own; it runs REPO/dist/bundle/parallax.js, so run
 * `npm run build` in REPO first.
 *
 *   node scripts/check-outputs.mjs save DIR [--root REPO]     produce every output into DIR (new or empty)
 *   node scripts/check-outputs.mjs compare DIR [--root REPO]  produce them afresh, compare with DIR
 *   node scripts/check-outputs.mjs diff A B                   compare two saved folders
 *
 * REPO defaults to the checkout holding this script. `npm run check:outputs -- compare DIR`.
 * compare and diff print each differing file with its first differing line in both versions, or
 * "N files identical"; exit 0 when identical, 1 on any difference, 2 on bad input.
 *
 * What is produced, with the working directory at REPO (spec paths relative, as a user types them):
 * - plan/NAME.json and plan/NAME.txt for every spec under examples/ (subfolders too): the stdout of
 *   `parallax plan SPEC --json`, and its exit code with its stderr (a spec `plan` refuses, e.g. for
 *   a missing local model or dataset, is kept: its message is an output too).
 * - STUDY/ for each quickstart of REPO/scripts/quickstart.mjs, run as that script runs it (`run`
 *   then `analyze`) into a temporary folder, one after another: run.txt (exit code, stdout),
 *   analyze.txt (exit code, stdout: the terminal overview, stderr), and every file `analyze` wrote
 *   or changed in the study folder (analysis.json, the card's .md and .json files).
 *
 * Every run is seeded by its spec, so the outputs are deterministic apart from what is normalised:
 * - in every text, the study folder, the temporary folder and REPO's absolute paths become
 *   <STUDY>, <TMP> and <ROOT>;
 * - the clock readings listed in VOLATILE below (found by diffing two runs): each one's value in
 *   analysis.json becomes <NAME> wherever that exact value appears in the study's saved files
 *   (analysis.json, the cards, the overview), so a card that prints the analysis time reads the same;
 * - the run id and manifest hash (checkoutPlaces: they depend on where the checkout is);
 * - measured wall time, the one output that is not seeded: an agent trial's working seconds are
 *   its wall time (sandboxed tool runs included), so each `"workingSeconds": {...}` estimate in
 *   the study's JSON files becomes "<wall time>", and, in an analysis.json that holds one, the
 *   rows hash (inputs.rows, which hashes those wall times) becomes "<rows hash with wall times>".
 * The CLI runs with TZ=UTC and NO_COLOR=1 so dates and colours do not depend on the shell.
 */
import { spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join, resolve } from "node:path";

/**
 * analysis.json fields that differ between two runs of the same spec and build: clock readings
 * (when the analysis ran and was written, when the run's first trial finished). Besides these and
 * the agent wall times (normaliseWallTime), nothing differs: the simulated panel, the bootstrap and
 * the judges are seeded by the spec (the blinding's random labels are not outputs saved here).
 */
export const VOLATILE = ["analyzedAt", "writtenAt", "firstFinishedAt"];

const COLUMNS = 120;

class BadInput extends Error {}

function usage() {
  return "usage: node scripts/check-outputs.mjs save DIR [--root REPO] | compare DIR [--root REPO] | diff A B";
}

/** Every file under dir, as paths relative to it with "/" separators, sorted. */
export function listFiles(dir) {
  const out = [];
  const walk = (sub) => {
    for (const name of readdirSync(join(dir, sub))) {
      const rel = sub ? `${sub}/${name}` : name;
      if (statSync(join(dir, rel)).isDirectory()) walk(rel);
      else out.push(rel);
    }
  };
  walk("");
  return out.sort();
}

/** A line clipped to the terminal width, keeping column `from` (the first difference) in view. */
function clip(prefix, line, from) {
  const room = COLUMNS - prefix.length;
  const before = Math.floor(room * 0.6);
  const start = line.length <= room || from < before ? 0 : from - before;
  let shown = start > 0 ? `...${line.slice(start + 3)}` : line;
  if (shown.length > room) shown = `${shown.slice(0, room - 3)}...`;
  return `${prefix}${shown}`;
}

/** The lines describing how file `rel` differs between a and b (empty when byte-identical). */
function describeDifference(rel, a, b, labelA, labelB) {
  if (a.equals(b)) return [];
  const linesA = a.toString("utf8").split("\n");
  const linesB = b.toString("utf8").split("\n");
  let i = 0;
  while (i < linesA.length && i < linesB.length && linesA[i] === linesB[i]) i++;
  const lineA = linesA[i] ?? "(end of file)";
  const lineB = linesB[i] ?? "(end of file)";
  let col = 0;
  while (col < lineA.length && lineA[col] === lineB[col]) col++;
  return [
    clip("", `${rel}: differs at line ${i + 1}, column ${col + 1}`, 0),
    clip(`  ${labelA}: `, lineA, col),
    clip(`  ${labelB}: `, lineB, col),
  ];
}

/** Compares two output folders byte for byte; returns the report's lines and whether they are identical. */
export function compareDirs(dirA, dirB, labelA = "A", labelB = "B") {
  const filesA = listFiles(dirA);
  const filesB = listFiles(dirB);
  const inB = new Set(filesB);
  const inA = new Set(filesA);
  const lines = [];
  let differing = 0;
  const all = [...new Set([...filesA, ...filesB])].sort();
  for (const rel of all) {
    if (!inB.has(rel) || !inA.has(rel)) {
      lines.push(clip("", `${rel}: only in ${inA.has(rel) ? labelA : labelB}`, 0));
      differing++;
      continue;
    }
    const d = describeDifference(rel, readFileSync(join(dirA, rel)), readFileSync(join(dirB, rel)), labelA, labelB);
    if (d.length > 0) differing++;
    lines.push(...d);
  }
  if (differing === 0) lines.push(`${all.length} files identical`);
  else lines.push(`${differing} of ${all.length} files differ`);
  return { identical: differing === 0, lines };
}

/** The quickstarts of REPO/scripts/quickstart.mjs: study name and spec path, in that file's order. */
export function quickstarts(source) {
  return [...source.matchAll(/^\s{2}(\w+): \{\s*spec: "([^"]+)"/gm)].map((m) => ({ name: m[1], spec: m[2] }));
}

/** Every spec (.yaml, .yml) under examples/, relative to the root with "/" separators. */
function exampleSpecs(root) {
  return listFiles(join(root, "examples"))
    .filter((rel) => /\.ya?ml$/.test(rel))
    .map((rel) => `examples/${rel}`);
}

/** Each absolute path or clock value replaced by its placeholder, longest first (so a study in TMP reads <STUDY>). */
function normalise(text, places) {
  let out = text;
  for (const [path, name] of [...places].sort((x, y) => y[0].length - x[0].length)) out = out.split(path).join(name);
  return out;
}

/** An agent cell's working-seconds estimate (estimate and interval), a measured wall time. */
const WALL_TIME = /"workingSeconds": \{[^{}]*\}/g;

/** Measured wall times, and the rows hash of an analysis.json that holds them, replaced by placeholders. */
export function normaliseWallTime(file, text) {
  const out = text.replace(WALL_TIME, '"workingSeconds": "<wall time>"');
  if (file !== "analysis.json" || out === text) return out;
  return out.replace(/^( {2}"inputs": \{[^{}]*?"rows": )"[0-9a-f]+"/m, '$1"<rows hash with wall times>"');
}

/** The values of the VOLATILE fields anywhere in an analysis.json text, each with its placeholder. */
export function volatileValues(analysisText) {
  const places = new Map();
  const visit = (value) => {
    if (Array.isArray(value)) value.forEach(visit);
    else if (value !== null && typeof value === "object") {
      for (const [key, v] of Object.entries(value)) {
        if (VOLATILE.includes(key) && typeof v === "string" && v.length > 0) places.set(v, `<${key}>`);
        else visit(v);
      }
    }
  };
  visit(JSON.parse(analysisText));
  return [...places];
}

/**
 * The run id and the manifest hash, as <runId> and <manifestHash>: the manifest holds an agent
 * item's attachment by its absolute path, so the same study run from two checkouts gets two of each.
 */
export function checkoutPlaces(analysisText) {
  return ["runId", "manifestHash"].flatMap((field) => {
    const match = new RegExp(`"${field}": "([^"]+)"`).exec(analysisText);
    return match ? [[match[1], `<${field}>`]] : [];
  });
}

function runCli(cli, root, args) {
  const env = { ...process.env, TZ: "UTC", NO_COLOR: "1" };
  delete env.FORCE_COLOR;
  const result = spawnSync(process.execPath, [cli, ...args], {
    cwd: root,
    env,
    encoding: "utf8",
    maxBuffer: 256 * 1024 * 1024,
  });
  if (result.error) throw result.error;
  return { code: result.status ?? `signal ${result.signal}`, stdout: result.stdout, stderr: result.stderr };
}

function write(path, text) {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

/** The size and modification time of each file in dir, to tell which files a command wrote. */
function snapshot(dir) {
  return new Map(
    readdirSync(dir).map((name) => {
      const s = statSync(join(dir, name));
      return [name, `${s.size}:${s.mtimeMs}`];
    }),
  );
}

/** Produces every output of the checkout at root into out (which exists and is empty). */
function produce(root, out, log) {
  const cli = join(root, "dist", "bundle", "parallax.js");
  const rootPlaces = [[root, "<ROOT>"]];
  for (const spec of exampleSpecs(root)) {
    const started = Date.now();
    const { code, stdout, stderr } = runCli(cli, root, ["plan", spec, "--json"]);
    const name = spec.replace(/^examples\//, "").replace(/\.ya?ml$/, "");
    write(join(out, "plan", `${name}.json`), normalise(stdout, rootPlaces));
    write(join(out, "plan", `${name}.txt`), `exit ${code}\n--- stderr\n${normalise(stderr, rootPlaces)}`);
    log(`plan ${spec}: exit ${code} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
  }
  const studies = quickstarts(readFileSync(join(root, "scripts", "quickstart.mjs"), "utf8"));
  // A quickstart.mjs whose study table no longer reads `name: { spec: "..." }` must not pass as "no quickstarts".
  if (studies.length === 0) throw new BadInput(`no quickstart found in ${join(root, "scripts", "quickstart.mjs")}`);
  for (const { name, spec } of studies) {
    const started = Date.now();
    const tmp = mkdtempSync(join(tmpdir(), "parallax-outputs-"));
    try {
      const study = join(tmp, basename(spec).replace(/\.ya?ml$/, ""));
      const places = [...rootPlaces, [tmp, "<TMP>"], [study, "<STUDY>"]];
      const run = runCli(cli, root, ["run", spec, "--out", study]);
      write(join(out, name, "run.txt"), `exit ${run.code}\n--- stdout\n${normalise(run.stdout, places)}`);
      const before = existsSync(study) ? snapshot(study) : new Map();
      const analyze = runCli(cli, root, ["analyze", study]);
      const after = existsSync(study) ? snapshot(study) : new Map();
      // The store's database is the run's state, not an output a user reads.
      const written = [...after]
        .filter(([file, stamp]) => before.get(file) !== stamp && !file.startsWith("parallax.db"))
        .map(([file]) => file)
        .sort();
      const analysisFile = join(study, "analysis.json");
      if (existsSync(analysisFile)) {
        const analysisText = readFileSync(analysisFile, "utf8");
        places.push(...volatileValues(analysisText), ...checkoutPlaces(analysisText));
      }
      const analyzeText = `exit ${analyze.code}\n--- stdout\n${analyze.stdout}--- stderr\n${analyze.stderr}`;
      write(join(out, name, "analyze.txt"), normalise(analyzeText, places));
      for (const file of written) {
        const text = normaliseWallTime(file, readFileSync(join(study, file), "utf8"));
        write(join(out, name, file), normalise(text, places));
      }
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      log(
        `${name} (${spec}): run exit ${run.code}, analyze exit ${analyze.code}, ${written.length} files (${seconds} s)`,
      );
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  }
}

function parseArgs(argv) {
  const positional = [];
  let root = resolve(import.meta.dirname, "..");
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--root") {
      if (argv[i + 1] === undefined) throw new BadInput("--root needs a folder");
      root = resolve(argv[++i]);
    } else if (argv[i].startsWith("-")) throw new BadInput(`unknown option ${argv[i]}; ${usage()}`);
    else positional.push(argv[i]);
  }
  const [command, ...rest] = positional;
  const arity = { save: 1, compare: 1, diff: 2 }[command];
  if (arity === undefined || rest.length !== arity) throw new BadInput(usage());
  return { command, paths: rest.map((p) => resolve(p)), root };
}

function requireBuild(root) {
  const cli = join(root, "dist", "bundle", "parallax.js");
  if (!existsSync(cli)) throw new BadInput(`${cli} is missing: run npm run build first (in ${root})`);
  for (const part of [join("scripts", "quickstart.mjs"), "examples"]) {
    if (!existsSync(join(root, part)))
      throw new BadInput(`${join(root, part)} is missing: is ${root} a Parallax checkout?`);
  }
}

function requireOutputDir(dir) {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new BadInput(`${dir} is not a folder of saved outputs`);
}

function main(argv) {
  const { command, paths, root } = parseArgs(argv);
  const log = (line) => process.stderr.write(`${line}\n`);
  if (command === "diff") {
    for (const p of paths) requireOutputDir(p);
    const { identical, lines } = compareDirs(paths[0], paths[1], "A", "B");
    process.stdout.write(`${lines.join("\n")}\n`);
    return identical ? 0 : 1;
  }
  const [dir] = paths;
  if (command === "save") {
    if (existsSync(dir) && (!statSync(dir).isDirectory() || readdirSync(dir).length > 0)) {
      throw new BadInput(`${dir} exists and is not an empty folder; remove it or choose another`);
    }
    requireBuild(root);
    // Produced beside DIR and moved into place at the end, so a failed save leaves nothing behind.
    mkdirSync(dirname(dir), { recursive: true });
    const staging = mkdtempSync(join(dirname(dir), `.${basename(dir)}-`));
    try {
      produce(root, staging, log);
      rmSync(dir, { recursive: true, force: true });
      renameSync(staging, dir);
    } catch (error) {
      rmSync(staging, { recursive: true, force: true });
      throw error;
    }
    process.stdout.write(`saved ${listFiles(dir).length} files in ${dir} (from ${root})\n`);
    return 0;
  }
  requireOutputDir(dir);
  requireBuild(root);
  const fresh = mkdtempSync(join(tmpdir(), "parallax-outputs-fresh-"));
  produce(root, fresh, log);
  const { identical, lines } = compareDirs(dir, fresh, "saved", "fresh");
  process.stdout.write(`${lines.join("\n")}\n`);
  if (identical) rmSync(fresh, { recursive: true, force: true });
  else process.stdout.write(`fresh outputs kept in ${fresh}\n`);
  return identical ? 0 : 1;
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  try {
    process.exitCode = main(process.argv.slice(2));
  } catch (error) {
    if (!(error instanceof BadInput)) throw error;
    process.stderr.write(`check-outputs: ${error.message}\n`);
    process.exitCode = 2;
  }
}
