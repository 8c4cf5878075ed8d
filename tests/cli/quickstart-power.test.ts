/**
 * Each quickstart is sized by its own `plan --power`: the contrast behind its planted headline
 * has at least the target power (80%) for a minimum effect below the planted one, under the
 * assumptions its spec declares from a pilot (analysis.power, never the defaults).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import { runCli } from "../helpers/cli.js";
import { needsSpecData } from "../helpers/prerequisites.js";

const EXAMPLES = join(import.meta.dirname, "..", "..", "examples");

interface Headline {
  spec: string;
  /** The planted headline, in words. */
  planted: string;
  level: string;
  format?: string;
  direction: "decrease" | "increase";
}

const HEADLINES: Headline[] = [
  {
    spec: "quickstart.yaml",
    planted: "map_reduce's MC loss",
    level: "map_reduce",
    format: "mc",
    direction: "decrease",
  },
  { spec: "grid-quickstart.yaml", planted: "T2's gain over T1 on every model", level: "T2", direction: "increase" },
  {
    spec: "audit-quickstart.yaml",
    planted: "the attribute family's accuracy drop",
    level: "attribute",
    direction: "decrease",
  },
  {
    spec: "agents-quickstart.yaml",
    planted: "S2 (planner_actor_rater) over S1 (agent_react)",
    level: "planner_actor_rater",
    direction: "increase",
  },
];

interface PowerRow {
  level: string;
  format?: string;
  power: { rate: number; closedForm: number };
}

for (const headline of HEADLINES) {
  const spec = join(EXAMPLES, headline.spec);
  test(`plan --power on ${headline.spec}: ${headline.planted} (${headline.level}) has at least 80% power`, {
    skip: needsSpecData(spec),
  }, () => {
    const result = runCli(["plan", spec, "--power", "--json"]);
    assert.equal(result.status, 0, result.stderr);
    const { power } = JSON.parse(result.stdout) as {
      power: {
        plan: { direction: string; target: number; minimum_effect: number };
        assumptions: { source: string };
        contrasts: PowerRow[];
      };
    };
    assert.equal(power.assumptions.source, "analysis.power", "the assumptions are the spec's (from a pilot)");
    assert.equal(power.plan.direction, headline.direction, "the minimum effect's direction is the planted one");
    assert.ok(power.plan.target >= 0.8, `target ${power.plan.target}`);
    const row = power.contrasts.find((c) => c.level === headline.level && c.format === headline.format);
    if (!row) assert.fail(`no power row for ${headline.level}: ${power.contrasts.map((c) => c.level).join(", ")}`);
    assert.ok(row.power.rate >= 0.8, `${headline.level}: simulated power ${row.power.rate}`);
    assert.ok(row.power.closedForm >= 0.78, `${headline.level}: closed-form power ${row.power.closedForm}`);
  });
}
