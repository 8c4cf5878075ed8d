/**
 * The simulated panel's model revision: "sim:<provider model id>@<hash>" over the planted
 * parameters that shape its answers, so it is reproducible, moves when the panel does, and tells
 * quantization variants apart (a variant's planted shift is part of it); latency is not.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { ModelSpec } from "../../src/contracts/spec.js";
import { simProvider } from "../../src/models/sim/provider.js";

function revision(options: Record<string, unknown>, model = "m", studySeed = 1): Promise<string | undefined> {
  const spec = { id: "m", provider: "sim", model: "m", options } as unknown as ModelSpec;
  return simProvider(spec, {}, { studySeed }).modelRevision!(model);
}

describe("sim model revision", () => {
  test("is deterministic, and derived from the planted parameters", async () => {
    const base = { ability: 0.5, model_shifts: { "m-q4": -0.4 } };
    const first = await revision(base);
    assert.match(first!, /^sim:m@[0-9a-f]{12}$/);
    assert.equal(await revision(base), first);
    assert.equal(await revision({ ...base, latency_ms: 50 }), first, "latency does not shape answers");
    assert.notEqual(await revision({ ...base, ability: 0.6 }), first);
    assert.notEqual(await revision({ ...base, temperature_effect: -1 }), first);
    assert.notEqual(await revision(base, "m", 2), first, "the study seed is part of the panel");
  });

  test("quantization variants record their own revision; an unshifted variant differs only by its id", async () => {
    const base = { ability: 0.5, model_shifts: { "m-q4": -0.4 } };
    const q4 = await revision(base, "m-q4");
    assert.match(q4!, /^sim:m-q4@/);
    assert.notEqual(q4!.split("@")[1], (await revision(base, "m"))!.split("@")[1]);
    assert.notEqual(q4, await revision({ ...base, model_shifts: { "m-q4": -0.5 } }, "m-q4"));
    assert.equal((await revision(base, "m-f16"))!.split("@")[1], (await revision(base, "m"))!.split("@")[1]);
  });
});
