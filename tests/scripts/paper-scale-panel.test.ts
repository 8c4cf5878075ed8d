/**
 * bench:paper-scale --models N: SafetyRepro's simulated panel repeated to N models, each copy with
 * its own name and the planted effects of the model it copies.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { GRID_PANEL } from "../../bench/grid-panel.js";
import { repeatedPanel } from "../../bench/paper-scale.js";

describe("bench:paper-scale's repeated panel", () => {
  it("is the panel itself at its own size", () => {
    assert.deepEqual(repeatedPanel(GRID_PANEL.length), GRID_PANEL);
  });

  it("repeats the panel to N models with distinct names and the copied model's settings", () => {
    const models = repeatedPanel(29);
    assert.equal(models.length, 29);
    assert.equal(new Set(models.map((m) => m.id)).size, 29, "every model has its own name");
    models.forEach((model, i) => {
      const { id, ...settings } = GRID_PANEL[i % GRID_PANEL.length];
      const { id: copyId, ...copied } = model;
      assert.deepEqual(copied, settings, `model ${copyId} copies ${id}`);
      assert.ok(copyId.startsWith(id), `${copyId} is named after ${id}`);
    });
    assert.equal(models[3].id, `${GRID_PANEL[0].id}-2`);
  });
});
