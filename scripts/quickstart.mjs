#!/usr/bin/env node
/**
 * One study's quickstart, end to end: run, analyze and report with the built CLI
 * (dist/), ending with the report's path. `node scripts/quickstart.mjs NAME`, NAME one of the
 * studies below (the npm scripts `quickstart`, `quickstart:grid`, `quickstart:audit`,
 * `quickstart:agents` call it after `npm run build`).
 *
 * It first prints the spec's `description`, which says what the simulated panel plants, so the
 * overview that follows can be read against it.
 *
 * `run` exits 4 when trials errored and `analyze` exits 3 when a measurement-integrity check
 * failed (README, "Exit codes"). A demo that plants such a failure on purpose continues past
 * that code, saying why in one line; any other non-zero exit stops the quickstart with it.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parse } from "yaml";

const STUDIES = {
  quickstart: { spec: "examples/quickstart.yaml", planted: {} },
  grid: { spec: "examples/grid-quickstart.yaml", planted: {} },
  audit: {
    spec: "examples/audit-quickstart.yaml",
    planted: {
      analyze: {
        3: "planted: the `pairs` benchmark's question-only format edits are silent no-ops on the log-prob path (F1), which the integrity gate fails; the failing checks are named above (examples/audit-quickstart.yaml, header)",
      },
    },
  },
  integrity: {
    spec: "examples/integrity-demo.yaml",
    planted: {
      analyze: {
        3: "planted: 12 items are 12 clusters, fewer than the 13 coefficients of the scaffold x model interaction model, so few_clusters fails that one test and it reads not interpretable; every contrast against direct stands (examples/integrity-demo.yaml, header)",
      },
    },
  },
  agents: {
    spec: "examples/agents-quickstart.yaml",
    planted: {
      run: {
        4: "planted: one simulated model carries a provider-serialisation bug on calls after tool results, so some of its trials error in the `bug` bucket (the robust slice drops them; examples/agents-quickstart.yaml, header)",
      },
    },
  },
};

/** Words wrapped to lines of at most 118 characters, so the explanation fits a terminal. */
function wrap(text, width = 118) {
  const lines = [""];
  for (const word of text.split(" ")) {
    const last = lines.length - 1;
    if (lines[last].length > 0 && lines[last].length + 1 + word.length > width) lines.push(`  ${word}`);
    else lines[last] = lines[last].length > 0 ? `${lines[last]} ${word}` : word;
  }
  return lines.join("\n");
}

const name = process.argv[2];
const study = STUDIES[name];
if (!study) {
  process.stderr.write(`usage: node scripts/quickstart.mjs ${Object.keys(STUDIES).join("|")}\n`);
  process.exit(2);
}
const cli = resolve("dist/cli/main.js");
if (!existsSync(cli)) {
  process.stderr.write(`${cli} is missing: run 'npm run build' first\n`);
  process.exit(2);
}
const { description } = parse(readFileSync(study.spec, "utf8"));
if (description) process.stdout.write(`${wrap(description)}\n`);
const dir = join("runs", study.spec.replace(/^examples\//, "").replace(/\.yaml$/, ""));

const steps = [
  ["run", study.spec, "--out", dir],
  ["analyze", dir],
  ["report", dir],
];
for (const args of steps) {
  const step = args[0];
  process.stdout.write(`\n$ parallax ${args.join(" ")}\n`);
  const result = spawnSync(process.execPath, [cli, ...args], { stdio: "inherit" });
  const code = result.status ?? 1;
  if (code === 0) continue;
  const why = study.planted[step]?.[code];
  if (!why) {
    process.stderr.write(`quickstart ${name}: 'parallax ${step}' exited ${code}; stopping\n`);
    process.exit(code);
  }
  process.stdout.write(`${wrap(`(exit ${code} from ${step} is ${why}; continuing)`)}\n`);
}
process.stdout.write(`\ncounts per cell: parallax status ${dir}\nreport: ${resolve(dir, "report.html")}\n`);
