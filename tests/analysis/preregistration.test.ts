import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { checkAgainstStamp, createStamp, normalizePlan, parseStamp } from "../../src/analysis/index.js";
import { parseSpec } from "../../src/core/spec-loader.js";
import type { ItemManifest } from "../../src/run/prepare/study.js";
import { runCli } from "../helpers/cli.js";
import { demoSpecYaml, writeDemoSpec } from "../helpers/study.js";

const FACETS = "    scaffold: [direct, map_reduce]";

describe("pre-registration and deviations", () => {
  it("stamps before the run, matches after it, refuses late stamps, and lists every deviation", () => {
    const { dir, specPath, outDir } = writeDemoSpec({ items: 6, facets: FACETS });
    const stamped = runCli(["preregister", specPath, "--out", outDir]);
    assert.equal(stamped.status, 0, stamped.stderr);
    assert.match(stamped.stdout, /stamp [0-9a-f]{64}/);
    const stamp = parseStamp(readFileSync(join(outDir, "preregistration.json"), "utf8"), "stamp");
    assert.equal(stamp.analysisPlan.equivalence.margin, 0.02, "defaults are frozen into the stamp");

    const again = runCli(["preregister", specPath, "--out", outDir]);
    assert.equal(again.status, 2);
    assert.match(again.stderr, /preregistration\.json already exists .*--force/);

    assert.equal(runCli(["run", specPath, "--out", outDir]).status, 0);
    const matched = runCli(["analyze", outDir]);
    assert.equal(matched.status, 0, matched.stderr);
    assert.match(matched.stdout, /pre-registration: the run matches its stamp/);
    assert.match(
      readFileSync(join(outDir, "scorecard.md"), "utf8"),
      /Pre-registered: pre-registered, run matches the stamp/,
    );

    // A plan given at analysis time differs from the frozen one: a deviation, field by field.
    const planPath = join(dir, "plan.yaml");
    writeFileSync(
      planPath,
      "equivalence: { margin: 0.05 }\nbootstrap: { resamples: 200 }\nspecification_curve: false\n",
    );
    const changed = runCli(["analyze", outDir, "--plan", planPath, "--full"]);
    assert.equal(changed.status, 0, changed.stderr);
    assert.match(changed.stdout, /3 deviation\(s\) from the stamp/);
    assert.match(
      changed.stdout,
      /D-001 \[analysis-plan\] analysis\.bootstrap\.resamples: registered 2000; implemented 200/,
    );
    assert.match(
      changed.stdout,
      /\[analysis-plan\] analysis\.equivalence\.margin: registered 0\.02; implemented 0\.05/,
    );
    assert.match(
      changed.stdout,
      /\[analysis-plan\] analysis\.specification_curve: registered \{"dimensions":.*; implemented false/,
    );

    const late = runCli(["preregister", specPath, "--out", outDir]);
    assert.equal(late.status, 2);
    assert.match(late.stderr, /already holds 12 finished trial\(s\): a pre-registration must come before the data/);
    const forced = runCli(["preregister", specPath, "--out", outDir, "--force"]);
    assert.equal(forced.status, 0, forced.stderr);
    const afterForce = runCli(["analyze", outDir, "--json"]);
    const deviations = JSON.parse(afterForce.stdout).methodology.preregistration.deviations as {
      kind: string;
      implemented: string;
    }[];
    assert.deepEqual(
      deviations.map((d) => d.kind),
      ["timing", "stamp", "timing"],
    );
    assert.match(deviations[0].implemented, /stamped with --force after 12 trial\(s\) had finished/);
    assert.match(deviations[2].implemented, /first trial finished at .* before the stamp/);
    assert.ok(existsSync(join(outDir, "scorecard.json")), 'expected existsSync(join(outDir, "scorecard.json"))');
  });

  it("describes spec and manifest changes field by field", () => {
    const spec = parseSpec(demoSpecYaml({ items: 3, facets: FACETS }), "demo.yaml");
    const manifest: ItemManifest = {
      benchmarks: [
        {
          id: "demo",
          loader: "inline",
          source: null,
          sample: null,
          skippedRows: 0,
          items: ["q001", "q002", "q003"].map((id) => ({ id, sha256: `h-${id}`, file: "", row: 0 })),
        },
      ],
    };
    const stamp = createStamp(spec, manifest, "2026-01-01T00:00:00.000Z");
    const changedSpec = parseSpec(
      demoSpecYaml({ items: 3, facets: FACETS, attempts: 2 }).replace("temperature: 0", "temperature: 0.7"),
      "demo.yaml",
    );
    const changedManifest: ItemManifest = {
      benchmarks: [
        {
          ...manifest.benchmarks[0],
          items: [manifest.benchmarks[0].items[0], { id: "q002", sha256: "new", file: "", row: 0 }],
        },
      ],
    };
    const check = checkAgainstStamp(stamp, {
      spec: changedSpec,
      manifest: changedManifest,
      planUsed: normalizePlan(undefined),
      planOverride: false,
      runCreatedAt: "2026-01-02T00:00:00.000Z",
      firstFinishedAt: "2026-01-02T00:01:00.000Z",
      analyzedAt: "2026-01-03T00:00:00.000Z",
    });
    assert.equal(check.status, "deviations");
    const lines = check.deviations.map(
      (d) => `${d.id} ${d.kind} ${d.element}: ${d.registered} -> ${d.implemented} @ ${d.when}`,
    );
    assert.deepEqual(lines, [
      "D-001 spec attempts: 1 -> 2 @ 2026-01-02T00:00:00.000Z",
      "D-002 spec models[sim-a].params.temperature: 0 -> 0.7 @ 2026-01-02T00:00:00.000Z",
      `D-003 manifest manifest benchmark demo items: 3 item(s), hash ${check.deviations[2].registered.slice(-12)} -> 2 item(s): removed q003; content changed: q002 @ 2026-01-02T00:00:00.000Z`,
    ]);
    const same = checkAgainstStamp(stamp, {
      spec,
      manifest,
      planUsed: normalizePlan(undefined),
      planOverride: false,
      runCreatedAt: "2026-01-02T00:00:00.000Z",
      firstFinishedAt: "2026-01-02T00:01:00.000Z",
      analyzedAt: "2026-01-03T00:00:00.000Z",
    });
    assert.equal(same.status, "matches");
    assert.equal(same.runHashes.spec, stamp.hashes.spec);
  });

  it("a plan key added after the stamp (the integrity thresholds) is no deviation at its default; a changed value is", () => {
    const spec = parseSpec(demoSpecYaml({ items: 3, facets: FACETS }), "demo.yaml");
    const stamp = createStamp(spec, null as never, "2026-01-01T00:00:00.000Z");
    // A stamp frozen by a version without the integrity gate.
    const { integrity: _added, ...older } = stamp.analysisPlan;
    const old = { ...stamp, analysisPlan: older as typeof stamp.analysisPlan };
    const facts = (planUsed: ReturnType<typeof normalizePlan>) => ({
      spec,
      manifest: null,
      planUsed,
      planOverride: true,
      runCreatedAt: "2026-01-02T00:00:00.000Z",
      firstFinishedAt: null,
      analyzedAt: "2026-01-03T00:00:00.000Z",
    });
    assert.equal(checkAgainstStamp(old, facts(normalizePlan(undefined))).status, "matches");
    const changed = checkAgainstStamp(old, facts(normalizePlan({ integrity: { parse_failures: 0.5 } })));
    assert.deepEqual(
      changed.deviations.map((d) => `${d.kind} ${d.element}: ${d.registered} -> ${d.implemented}`),
      ["analysis-plan analysis.integrity.parse_failures: 0.2 -> 0.5"],
    );
  });
});
