/**
 * Every scaffold run end to end on the simulated panel (runStudy -> executor -> SQLite store):
 * transcripts with the expected roles, the propagation audit stored on each call, and the
 * planted map-reduce mechanism (ScaffoldSafety 5.2) visible in the accuracies.
 */
import assert from "node:assert/strict";
import { before, describe, test } from "node:test";
import { STRICT_SYSTEM_PROMPT } from "../../src/facets/system-prompt.js";
import {
  accuracyBy,
  expectedRoles,
  itemsYaml,
  runAndRead,
  SCAFFOLD_FACET_VALUES,
  type StudyResult,
  scaffoldOf,
  settingsOf,
} from "./helpers.js";

const SIM_MODEL = "  - id: sim-strong\n    provider: sim\n    model: strong";

describe("scaffolds on the sim provider", () => {
  let study: StudyResult;
  before(async () => {
    study = await runAndRead({
      models: SIM_MODEL,
      facets: `    scaffold: [${SCAFFOLD_FACET_VALUES.join(", ")}]\n    format: [mc]\n    system_prompt: [strict]`,
      items: itemsYaml(6),
    });
  });

  test("every trial finishes with a parsed answer", () => {
    assert.equal(study.trials.length, SCAFFOLD_FACET_VALUES.length * 6);
    for (const trial of study.trials) {
      assert.equal(trial.status, "finished", `${scaffoldOf(trial)}: ${trial.outcome?.errorMessage}`);
      assert.equal(trial.outcome?.parseStatus, "ok", `${scaffoldOf(trial)}: ${trial.outcome?.finalAnswer}`);
    }
  });

  test("each transcript has the expected number and roles of sub-calls", () => {
    for (const trial of study.trials) {
      const calls = study.callsOf(trial.id);
      const expected = expectedRoles(scaffoldOf(trial), settingsOf(trial), calls);
      assert.deepEqual(
        calls.map((c) => c.role),
        expected,
        `${scaffoldOf(trial)} ${JSON.stringify(settingsOf(trial))}`,
      );
    }
    const mapReduce = study.trials.filter((t) => scaffoldOf(t) === "map_reduce");
    assert.ok(
      mapReduce.every((t) => study.callsOf(t.id).length === 5),
      "3 chunks: decompose, 3 maps, reduce",
    );
  });

  test("loops stop early: some react and critic runs end before their limit", () => {
    const lengths = (name: string) =>
      study.trials.filter((t) => scaffoldOf(t) === name).map((t) => study.callsOf(t.id).length);
    assert.ok(Math.min(...lengths("react")) < 4, `react calls ${lengths("react")}`);
    assert.ok(Math.min(...lengths("critic")) < 5, `critic calls ${lengths("critic")}`);
  });

  test("decoding defaults: temperature 0, 1,024 tokens direct, 2,048 scaffolded", () => {
    for (const trial of study.trials) {
      const name = scaffoldOf(trial);
      const direct = name === "direct" || settingsOf(trial).intensity === "passthrough";
      for (const call of study.callsOf(trial.id)) {
        assert.equal(call.paramsUsed.temperature, 0);
        assert.equal(call.paramsUsed.maxTokens, direct ? 1024 : 2048, `${name} ${call.role}`);
      }
    }
  });

  test("the propagation audit: options reach every sub-call except standard map calls", () => {
    const share = (name: string, role?: RegExp) => {
      const calls = study.trials
        .filter((t) => scaffoldOf(t) === name)
        .flatMap((t) => study.callsOf(t.id))
        .filter((c) => role === undefined || role.test(c.role));
      assert.ok(calls.length > 0, `${name} has calls`);
      return calls.filter((c) => c.audit?.options_reached === true).length / calls.length;
    };
    for (const name of ["direct", "cot", "critic", "map_reduce_options", "react", "invocation_chain", "adjudicated"]) {
      assert.equal(share(name), 1, name);
    }
    assert.equal(share("map_reduce", /^map-/), 0);
    assert.equal(share("map_reduce", /^(decompose|reduce)$/), 1);
  });

  test("the propagation audit: the strict system prompt reaches answer calls, not scaffold-internal ones", () => {
    const calls = study.calls;
    const retained = (role: RegExp) => {
      const values = calls.filter((c) => role.test(c.role)).map((c) => c.audit?.system_prompt_retained);
      assert.ok(values.length > 0, `calls with roles ${role}`);
      return values;
    };
    assert.ok(
      retained(/^(answer|reason|reduce|step-\d|chain-\d|revise-\d)$/).every((r) => r === 1),
      "expected retained(/^(answer|reason|reduce|step-\\d|chain-\\d|revise-\\d)$/).every((r) => r === 1)",
    );
    assert.ok(
      retained(/^(decompose|map-\d|critique-\d|check|adjudicate)$/).every((r) => r === 0),
      "expected retained(/^(decompose|map-\\d|critique-\\d|check|adjudicate)$/).every((r) => r === 0)",
    );
    const direct = calls.find((c) => c.role === "answer")!;
    assert.deepEqual(direct.messages[0], { role: "system", content: STRICT_SYSTEM_PROMPT });
    assert.ok(
      calls.every((c) => c.audit?.safety_reached === null),
      "inline items carry no benchmark instructions",
    );
  });
});

describe("planted map-reduce mechanism on the sim", () => {
  test("map_reduce loses MC accuracy vs direct and map_reduce_options recovers most of it", async () => {
    const models = [0.5, 1.0, 1.5, 2.0]
      .map((a, i) => `  - id: sim-${i}\n    provider: sim\n    model: panel-${i}\n    options: { ability: ${a} }`)
      .join("\n");
    const { trials } = await runAndRead({
      models,
      facets: "    scaffold: [direct, map_reduce, map_reduce_options]\n    format: [mc]",
      items: itemsYaml(48),
      concurrency: 8,
    });
    const accuracy = accuracyBy(trials, scaffoldOf);
    const direct = accuracy.get("direct")!;
    const standard = accuracy.get("map_reduce")!;
    const preserving = accuracy.get("map_reduce_options")!;
    const loss = direct - standard;
    const recovery = (preserving - standard) / loss;
    const summary = `direct ${direct.toFixed(3)}, map_reduce ${standard.toFixed(3)}, map_reduce_options ${preserving.toFixed(3)}`;
    console.log(
      `planted effect (4 sim models x 48 items): ${summary}, loss ${loss.toFixed(3)}, recovery ${recovery.toFixed(2)}`,
    );
    assert.ok(loss >= 0.06, `map_reduce should lose at least 6 pp: ${summary}`);
    assert.ok(recovery >= 0.5, `map_reduce_options should recover at least half: ${summary}`);
  });
});
