/** Where the report's numbers link: the page holding a trial or cell, the index, or the viewer. */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { analyzeDirectory, buildScorecard, normalizePlan } from "../../src/analysis/index.js";
import { cellLink, cellViewerLink, trialLink, writeReport } from "../../src/report/index.js";
import { openStore } from "../../src/run/store/open.js";
import { startViewer } from "../../src/viewer/serve.js";
import { writeLargeStudy } from "../viewer/fixture.js";

describe("report links", () => {
  const pageOf = new Map([
    ["t-abc", "trials-0002.html"],
    ["cell-m--b--direct", "trials-0001.html"],
  ]);
  const options = { trialsHref: "trials.html", pageOf };

  it("link a trial or a fine cell to the page that holds it, anything else to the index", () => {
    assert.equal(trialLink(options, "abc"), "trials-0002.html#t-abc");
    assert.equal(cellLink(options, "cell-m--b--direct"), "trials-0001.html#cell-m--b--direct");
    assert.equal(cellLink(options, "cell-all--b--direct"), "trials.html#cell-all--b--direct");
  });

  it("link trials into the viewer when given its URL, with or without a trailing slash", () => {
    for (const viewerUrl of ["http://127.0.0.1:8123", "http://127.0.0.1:8123/"]) {
      assert.equal(trialLink({ ...options, viewerUrl }, "a b"), "http://127.0.0.1:8123/trials/a%20b");
    }
    // Cells stay on the static pages: the viewer's list is filtered by facet, not by configuration.
    assert.equal(cellLink(options, "cell-m--b--direct"), "trials-0001.html#cell-m--b--direct");
  });

  it("link a cell's trials to the viewer's list filtered by its model, benchmark and configuration facets", () => {
    const cell = { model: "m 1", benchmark: "b&c", facets: { scaffold: "react", perturbation: "none" } };
    const url = new URL(cellViewerLink("http://127.0.0.1:8123", cell));
    assert.equal(url.origin + url.pathname, "http://127.0.0.1:8123/");
    assert.deepEqual(Object.fromEntries(url.searchParams), {
      model: "m 1",
      benchmark: "b&c",
      "f.scaffold": "react",
      "f.perturbation": "none",
    });
  });
});

describe("a cell's trials in the viewer", () => {
  it("the report's viewer link of each cell lists exactly that cell's trials", async () => {
    // 20 trials per cell: each cell's list fits the viewer's first page.
    const { dir, trials } = await writeLargeStudy(160);
    const viewer = await startViewer(dir);
    try {
      const store = await openStore(dir);
      let paths: Awaited<ReturnType<typeof writeReport>>;
      let configurationFacets: string[];
      try {
        const run = (await store.getRun())!;
        const plan = normalizePlan({ bootstrap: { resamples: 100 }, specification_curve: { permutations: 0 } });
        const outcome = await analyzeDirectory(dir, store, run, { plan });
        configurationFacets = outcome.analysis.meta.configurationFacets;
        const card = buildScorecard(outcome.analysis, outcome.methodology);
        paths = await writeReport({ outcome, card }, { store, run }, join(dir, "report.html"), {
          viewerUrl: viewer.url,
        });
      } finally {
        await store.close();
      }
      const report = readFileSync(paths.report, "utf8");
      const links = [...report.matchAll(/<a href="([^"]+)">in the viewer<\/a>/g)].map((m) =>
        m[1].replaceAll("&amp;", "&"),
      );
      assert.equal(links.length, 8, "one per fine cell (2 models x 2 scaffolds x 2 perturbations)");
      const cellsSeen = new Set<string>();
      for (const link of links) {
        assert.ok(link.startsWith(viewer.url), link);
        const params = new URL(link).searchParams;
        const expected = trials
          .filter(
            (t) =>
              t.model === params.get("model") &&
              configurationFacets.every((f) => params.get(`f.${f}`) === t[f as "scaffold" | "perturbation"]),
          )
          .map((t) => t.id)
          .sort();
        assert.equal(expected.length, 20, `${link} names one cell`);
        cellsSeen.add(expected.join());
        const html = await (await fetch(link)).text();
        const listed = [...html.matchAll(/class="trial-link">([^<]+)</g)].map((m) => m[1]);
        assert.deepEqual(listed, expected, link);
      }
      assert.equal(cellsSeen.size, 8);
    } finally {
      await viewer.close();
    }
  });
});
