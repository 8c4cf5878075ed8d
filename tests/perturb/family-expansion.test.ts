/**
 * A perturbation family value in a spec stands for its 3 perturbations per item x the audit seeds
 * (42, 123, 2024), so the trials exist for every (item, perturbation, seed); a value naming a seed
 * or a slot narrows it, and an exclusion by the bare family name removes all of them.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { facetLabel } from "../../src/contracts/condition.js";
import { expandConditions } from "../../src/run/prepare/conditions.js";

const labels = (facets: Record<string, unknown[]>, exclude: Record<string, unknown>[] = []) =>
  expandConditions({ facets, exclude } as never).map((c) => facetLabel(c.perturbation));

test("a family expands to 3 slots x 3 seeds; a seed narrows it; none and named perturbations stay", () => {
  const got = labels({ perturbation: ["none", "format", { name: "semantic", seed: 7 }, "case_change"] });
  assert.equal(got.length, 1 + 9 + 3 + 1);
  for (const seed of [42, 123, 2024])
    for (const slot of [0, 1, 2]) assert.ok(got.includes(`format(seed=${seed},slot=${slot})`), `${seed}/${slot}`);
  assert.deepEqual(
    got.filter((l) => l.startsWith("semantic")),
    ["semantic(seed=7,slot=0)", "semantic(seed=7,slot=1)", "semantic(seed=7,slot=2)"],
  );
  assert.ok(
    got.includes("none") && got.includes("case_change"),
    'expected got.includes("none") && got.includes("case_change")',
  );
});

test("an explicit slot and seed is itself, duplicates count once, per_item sets the slots", () => {
  const got = labels({
    perturbation: ["placebo", { name: "placebo", seed: 42, slot: 1 }, { name: "attribute", per_item: 2, seed: 5 }],
  });
  assert.equal(got.filter((l) => l === "placebo(seed=42,slot=1)").length, 1);
  assert.deepEqual(
    got.filter((l) => l.startsWith("attribute")),
    ["attribute(per_item=2,seed=5,slot=0)", "attribute(per_item=2,seed=5,slot=1)"],
  );
});

test("excluding the bare family name removes every expanded value", () => {
  const got = labels({ perturbation: ["none", "format"], format: ["mc", "oe"] }, [
    { perturbation: "format", format: "oe" },
  ]);
  assert.equal(got.length, 2 + 9);
});
