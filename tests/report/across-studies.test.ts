/**
 * The report's "Across studies" paragraph: a study folder with sibling study folders that hold
 * the same items prints the exact `parallax compare` and `parallax profile` commands naming them;
 * a sibling of other items, a copy of the same run, a folder with no store and a lone study get
 * nothing. The studies are the simulated report fixture, written side by side.
 */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { analyzeDirectory, buildScorecard, normalizePlan } from "../../src/analysis/index.js";
import { writeReport } from "../../src/report/index.js";
import { openStore } from "../../src/run/store/open.js";
import { writeStudyFixture } from "./study-fixture.js";

/** Analyses the study in `dir` and writes its report there; returns the report's text. */
async function reportOf(dir: string): Promise<string> {
  const store = await openStore(dir);
  try {
    const run = (await store.getRun())!;
    const plan = normalizePlan({ bootstrap: { resamples: 200 }, specification_curve: { permutations: 0 } });
    const outcome = await analyzeDirectory(dir, store, run, { plan });
    const paths = await writeReport(
      { outcome, card: buildScorecard(outcome.analysis, outcome.methodology) },
      { store, run },
      join(dir, "report.html"),
    );
    return readFileSync(paths.report, "utf8");
  } finally {
    await store.close();
  }
}

const across = (html: string) => /<h2 id="across">[\s\S]*?<\/pre>/.exec(html)?.[0] ?? "";

describe("the report names the studies beside it", () => {
  it("prints compare and profile commands for sibling studies of the same items, and only those", async () => {
    const parent = mkdtempSync(join(tmpdir(), "parallax-across-"));
    const [a, b, other, copy] = ["a-study", "b-study", "c-other-items", "d-copy"].map((n) => join(parent, n));
    await writeStudyFixture({ dir: a, runId: "run-a" });
    await writeStudyFixture({ dir: b, runId: "run-b" });
    await writeStudyFixture({ dir: other, runId: "run-c", benchmark: "elsewhere" });
    await writeStudyFixture({ dir: copy, runId: "run-a" });
    mkdirSync(join(parent, "notes"));
    const section = across(await reportOf(a));
    assert.ok(section !== "", "the report has an Across studies section");
    assert.ok(section.includes(`${b} (12 shared items)`), `the sibling and its 12 shared items: ${section}`);
    assert.ok(section.includes(`parallax compare ${a} ${b}\n`), `the exact compare command: ${section}`);
    assert.ok(section.includes(`parallax profile ${a} ${b}</pre>`), `the exact profile command: ${section}`);
    for (const not of [other, copy, join(parent, "notes")])
      assert.ok(!section.includes(not), `${not} shares no item or is the same run: not named`);
  });

  it("prints nothing for a study with no sibling study", async () => {
    const parent = mkdtempSync(join(tmpdir(), "parallax-across-"));
    const alone = join(parent, "alone");
    await writeStudyFixture({ dir: alone, runId: "run-alone" });
    mkdirSync(join(parent, "empty"));
    const html = await reportOf(alone);
    assert.ok(!html.includes('id="across"'), "no Across studies section");
    assert.ok(!html.includes("parallax compare"), "no compare command");
  });
});
