/**
 * facetsAt: each stage's registered facets in name order, worked out once but never stale (a facet
 * registered after a first call is in the next one).
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { facets, facetsAt } from "../../src/facets/registry.js";
import { type Facet, type FacetStage, TASK_STAGES } from "../../src/facets/types.js";

const STAGES: FacetStage[] = ["format", ...TASK_STAGES, "run"];

/** What facetsAt gives, worked out from the registry here. */
function expected(stage: FacetStage): Facet[] {
  return facets
    .names()
    .map((name) => facets.get(name))
    .filter((facet) => facet.stage === stage);
}

describe("facetsAt", () => {
  it("gives each stage's facets in name order, the same list on every call", () => {
    for (const stage of STAGES) {
      assert.deepEqual(facetsAt(stage), expected(stage), stage);
      assert.equal(facetsAt(stage), facetsAt(stage), `${stage}: worked out once`);
    }
    assert.ok(
      STAGES.some((stage) => facetsAt(stage).length > 1),
      "some stage has several facets",
    );
  });

  it("includes a facet registered after a first call", () => {
    const stage = STAGES.find((s) => facetsAt(s).length > 0)!;
    const before = facetsAt(stage);
    const late = { ...before[0], name: "aaa_registered_late" } as Facet;
    facets.register(late.name, late);
    assert.deepEqual(
      facetsAt(stage).map((f) => f.name),
      [late.name, ...before.map((f) => f.name)],
    );
  });
});
