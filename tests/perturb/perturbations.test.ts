/**
 * Every perturbation on real items of ../shared/datasets: deterministic from (item, perturbation,
 * seed, variant), the input never mutated, the gold answer kept by choice reordering (and by every
 * surface family), and a not-applicable record with a reason wherever a perturbation cannot act.
 */
import assert from "node:assert/strict";
import type { Item } from "../../src/contracts/item.js";
import { applyPerturbation, familyMembers, perturbations, perturbFamily } from "../../src/perturb/registry.js";
import { PERTURBATION_FAMILIES, type PerturbationRecord } from "../../src/perturb/types.js";
import { load, sharedSkip } from "../datasets/helpers.js";
import { before, describeNeeding, test } from "../helpers/prerequisites.js";

/** Benchmark -> loader and source under ../shared/datasets. */
const SOURCES: Record<string, [string, string]> = {
  truthfulqa: ["truthfulqa_mc1", "truthfulqa"],
  bbq: ["bbq", "bbq/data/Religion.jsonl"],
  crows: ["crows_pairs", "crows-pairs/data/crows_pairs_anonymized.csv"],
  toxigen: ["toxigen", "toxigen/prompts/hate_asian_1k.txt"],
  xstest: ["xstest", "xstest"],
};
const SAMPLE = 30;

const pools = new Map<string, Item[]>();
const samples = new Map<string, Item[]>();

function sampleOf(benchmark: string): Item[] {
  const items = samples.get(benchmark);
  assert.ok(items && items.length === SAMPLE, `${benchmark}: ${SAMPLE} sampled items`);
  return items;
}

function reasonOf(r: PerturbationRecord): string {
  return r.status === "not_applicable" ? r.reason : "";
}

describeNeeding(sharedSkip, "perturbations on real items", () => {
  before(async () => {
    for (const [benchmark, [loader, source]] of Object.entries(SOURCES)) {
      const { items } = await load(loader, source);
      pools.set(benchmark, items);
      // Every k-th item: spread over the file (XSTest: over its 18 types).
      const step = Math.floor(items.length / SAMPLE);
      samples.set(
        benchmark,
        Array.from({ length: SAMPLE }, (_, k) => items[k * step]),
      );
    }
  });

  test("every perturbation is deterministic, leaves its input alone, and records why it does not apply", () => {
    const names = perturbations.names();
    assert.equal(names.length, 15);
    let applied = 0;
    let notApplicable = 0;
    for (const benchmark of Object.keys(SOURCES)) {
      const pool = pools.get(benchmark)!;
      for (const item of sampleOf(benchmark)) {
        const before = structuredClone(item);
        for (const name of names) {
          for (const variant of [0, 1, 2]) {
            const a = applyPerturbation(item, name, { seed: 42, variant, pool });
            const b = applyPerturbation(item, name, { seed: 42, variant, pool });
            assert.deepEqual(a, b, `${benchmark} ${item.id} ${name} v${variant}: deterministic`);
            if (a.status === "applied") {
              applied++;
              assert.ok(a.changed.length > 0, `${name} on ${item.id}: something changed`);
              if (a.changed.includes("stem")) assert.notEqual(a.item.stem, item.stem, `${name}: the stem differs`);
            } else {
              notApplicable++;
              assert.ok(a.reason.length > 10, `${benchmark} ${item.id} ${name}: a reason ('${a.reason}')`);
            }
          }
        }
        assert.deepEqual(item, before, `${benchmark} ${item.id}: the input item is not mutated`);
      }
    }
    assert.ok(applied > 0 && notApplicable > 0, `applied ${applied}, not applicable ${notApplicable}`);
  });

  test("choice reordering keeps the gold answer (and the option-index metadata) on its option", () => {
    for (const benchmark of ["truthfulqa", "bbq", "toxigen", "crows"]) {
      let moved = 0;
      for (const item of sampleOf(benchmark)) {
        for (const seed of [42, 123, 2024]) {
          const r = applyPerturbation(item, "choice_reorder", { seed });
          assert.equal(r.status, "applied", `${benchmark} ${item.id}`);
          if (r.status !== "applied") continue;
          assert.deepEqual([...r.item.options!].sort(), [...item.options!].sort(), "same options");
          if (item.options!.some((o, k) => o !== r.item.options![k])) moved++;
          if (item.goldIndex !== undefined)
            assert.equal(r.item.options![r.item.goldIndex!], item.options![item.goldIndex], `${item.id}: gold option`);
          for (const field of ["unknown_index", "target_index", "biased_index", "sent_more_index"]) {
            const v = item.metadata[field];
            if (typeof v === "number")
              assert.equal(r.item.options![r.item.metadata[field] as number], item.options![v], `${item.id}: ${field}`);
          }
        }
      }
      assert.ok(moved === SAMPLE * 3, `${benchmark}: every reordering moves an option (${moved})`);
    }
    // Seeds give different orders on items with several options.
    const many = sampleOf("truthfulqa").find((i) => i.options!.length >= 4)!;
    const orders = [42, 123, 2024].map((seed) => {
      const r = applyPerturbation(many, "choice_reorder", { seed });
      return r.status === "applied" ? r.item.options!.join("|") : "";
    });
    assert.ok(new Set(orders).size > 1, "the seed changes the order");
  });

  test("each attribute perturbation applies to the items whose metadata declares its construct, and to no other", () => {
    const expected: Record<string, string> = {
      truthfulqa: "opposite_construct",
      bbq: "demographic_swap",
      crows: "demographic_swap",
      toxigen: "toxicity_flip",
      xstest: "safety_pair",
    };
    for (const [benchmark, own] of Object.entries(expected)) {
      const pool = pools.get(benchmark)!;
      for (const p of familyMembers("attribute")) {
        const records = sampleOf(benchmark).map((item) => applyPerturbation(item, p.name, { pool }));
        const applied = records.filter((r) => r.status === "applied").length;
        if (p.name === own) assert.ok(applied > 0, `${p.name} applies on ${benchmark}`);
        else {
          assert.equal(applied, 0, `${p.name} never applies on ${benchmark}`);
          assert.ok(
            records.every((r) => /construct/.test(reasonOf(r))),
            `${p.name} on ${benchmark}: the reason names the construct`,
          );
        }
      }
    }
    // The answer key stays fixed under the attribute flip (App. F).
    for (const item of sampleOf("truthfulqa")) {
      const r = applyPerturbation(item, "opposite_construct");
      assert.ok(
        r.status === "applied" && r.item.goldIndex === item.goldIndex && r.item.metadata.construct_flipped === true,
        'expected r.status === "applied" && r.item.goldIndex === item.goldIndex && r.item.metadata.constr...',
      );
    }
    // ToxiGen: every statement is reframed in the stem.
    for (const item of sampleOf("toxigen")) {
      const r = applyPerturbation(item, "toxicity_flip", { variant: 1 });
      assert.equal(r.status, "applied", item.id);
      if (r.status === "applied")
        for (const s of r.item.metadata.statements as string[])
          assert.ok(r.item.stem.includes(s), "reframed statement shown");
    }
    // XSTest: a safe prompt's partner is an unsafe contrast prompt and vice versa; without the pool, not applicable.
    for (const item of sampleOf("xstest")) {
      const r = applyPerturbation(item, "safety_pair", { pool: pools.get("xstest")! });
      if (r.status === "applied") {
        assert.notEqual(
          r.item.metadata.pair_partner_label,
          item.metadata.label,
          `${item.id}: the partner flips safety`,
        );
        assert.equal(r.item.metadata.label, item.metadata.label, "the expected behaviour (key) is unchanged");
      } else assert.match(r.reason, /contrast type/);
      const alone = applyPerturbation(item, "safety_pair");
      assert.equal(alone.status, "not_applicable");
      assert.match(reasonOf(alone), /needs the benchmark's items/);
    }
    // BBQ / CrowS: the swap changes demographic terms only where the list has them; otherwise a reason.
    const bbq = sampleOf("bbq").map((item) => applyPerturbation(item, "demographic_swap"));
    for (const r of bbq) if (r.status === "not_applicable") assert.match(r.reason, /no listed demographic term/);
    const crows = sampleOf("crows").map((item) => applyPerturbation(item, "demographic_swap"));
    const crowsApplied = crows.filter((r) => r.status === "applied");
    assert.ok(crowsApplied.length > 0, "CrowS-Pairs swaps");
    for (const [k, r] of crows.entries()) {
      if (r.status !== "applied") continue;
      const item = sampleOf("crows")[k];
      assert.ok(r.changed.includes("options"), "CrowS: the scored sentences change");
      // One-to-one: two sentences about different groups stay about different groups.
      if (item.options![0] !== item.options![1])
        assert.notEqual(r.item.options![0], r.item.options![1], `${item.id}: the pair keeps its contrast`);
    }
    // BBQ: the two people the options name are exchanged in the stem where it mentions both.
    let exchanged = 0;
    for (const item of sampleOf("bbq")) {
      const r = applyPerturbation(item, "demographic_swap", { variant: 0 });
      if (r.status !== "applied" || !r.note.startsWith("exchanged")) continue;
      exchanged++;
      assert.deepEqual(r.item.options, item.options, "an exchange keeps the options");
      assert.equal(r.item.goldIndex, item.goldIndex, "and the key");
      assert.notEqual(r.item.stem, item.stem);
    }
    assert.ok(exchanged > 0, "some BBQ items exchange their two people");
  });

  test("every family gives 3 perturbations per item, each applied or not applicable with a reason", () => {
    for (const benchmark of Object.keys(SOURCES)) {
      const pool = pools.get(benchmark)!;
      for (const family of PERTURBATION_FAMILIES) {
        let applied = 0;
        for (const item of sampleOf(benchmark)) {
          const records = [0, 1, 2].map((slot) => perturbFamily(item, family, { slot, pool }));
          assert.deepEqual(
            records,
            [0, 1, 2].map((slot) => perturbFamily(item, family, { slot, pool })),
            "deterministic",
          );
          for (const r of records) {
            assert.equal(r.family, family);
            if (r.status === "applied") applied++;
            else assert.ok(r.reason.length > 0, `${benchmark} ${family}: reason`);
          }
          // Distinct slots are distinct realisations where the family has several applicable members.
          const applicable = records.filter((r) => r.status === "applied");
          if (applicable.length === 3 && family !== "attribute")
            assert.equal(
              new Set(applicable.map((r) => `${r.perturbation}/${r.variant}`)).size,
              3,
              `${family} slots differ`,
            );
        }
        assert.ok(applied > 0, `${family} applies to some ${benchmark} items`);
      }
    }
  });

  test("a perturbation that changes nothing is recorded as not applicable, not passed through", () => {
    const item = sampleOf("xstest")[0];
    const upper = applyPerturbation(item, "case_change", { settings: { mode: "upper" } });
    assert.equal(upper.status, "applied");
    if (upper.status !== "applied") return;
    const again = applyPerturbation(upper.item, "case_change", { settings: { mode: "upper" } });
    assert.equal(again.status, "not_applicable");
    assert.match(reasonOf(again), /identity on this item/);
  });
});
