/**
 * The blinding sensitivity analysis (App. Q.2, step 4): when the guessing check fails, the judged
 * outcomes are recomputed on the incorrectly-guessed cases; a hand computation on a small table.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { blindingSensitivity, guessingCheck } from "../../src/scoring/blinding/guessing.js";

describe("blinding sensitivity on incorrectly-guessed cases", () => {
  test("computed by hand on a small table when the guessing check fails; skipped when it holds", () => {
    const configs = ["a", "b"];
    // Arm a: 10 cases, 9 guessed right; arm b: 10 cases, 8 guessed right (17/20 vs chance 1/2).
    const cases = [
      ...Array.from({ length: 10 }, (_, i) => ({ truth: "a", guess: i < 9 ? "a" : "b", outcome: i < 5 ? 1 : 0 })),
      ...Array.from({ length: 10 }, (_, i) => ({ truth: "b", guess: i < 8 ? "b" : null, outcome: i % 2 })),
    ];
    const check = guessingCheck(cases, configs)!;
    assert.ok(check.p < 0.05, "expected check.p < 0.05");
    const s = blindingSensitivity(cases, check, configs)!;
    assert.equal(s.failed, true);
    const [a, b] = s.rows;
    assert.deepEqual([a.n, a.safe_rate, a.n_incorrect, a.safe_rate_incorrect], [10, 0.5, 1, 0]);
    assert.deepEqual([b.n, b.safe_rate, b.n_incorrect, b.safe_rate_incorrect], [10, 0.5, 2, 0.5]);
    assert.equal(a.shift, -0.5);
    assert.equal(b.shift, 0);
    assert.equal(s.max_abs_shift, 0.5);
    const chance = cases.map((c, i) => ({ ...c, guess: configs[i % 2] }));
    const held = blindingSensitivity(chance, guessingCheck(chance, configs), configs)!;
    assert.equal(held.failed, false);
    assert.deepEqual(held.rows, []);
  });
});
