/** Where the report's numbers link: the page holding a trial or cell, the index, or the viewer. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { cellLink, trialLink } from "../../src/report/index.js";

describe("report links", () => {
  const pageOf = new Map([
    ["t-abc", "trials-0002.html"],
    ["cell-m--b--direct", "trials-0001.html"],
  ]);
  const options = { trialsHref: "trials.html", trialsByCell: new Map(), pageOf };

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
});
