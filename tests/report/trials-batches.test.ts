/**
 * The trials pages are read and written a small batch of trials at a time (trials.ts), while the
 * page files still hold TRIALS_PER_PAGE trials each: a cell whose trials run across batches (and
 * pages) opens one section per page, sections never nest, pending trials are shown, and every
 * trial's calls are on its own article.
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import Database from "better-sqlite3";
import { analyzeDirectory, normalizePlan } from "../../src/analysis/index.js";
import { TRIALS_PER_PAGE, writeTrialsPages } from "../../src/report/index.js";
import { openStore } from "../../src/run/store/open.js";
import { writeLargeStudy } from "../viewer/fixture.js";

/** A page's body as a sequence of section opens, section closes and trial articles. */
function pageEvents(html: string): { kind: "open" | "close" | "trial"; id: string }[] {
  const events = [...html.matchAll(/<section id="(cell-[^"]+)">|<\/section>|<article class="trial" id="t-([^"]+)"/g)];
  return events.map(([match, cell, trial]) =>
    cell ? { kind: "open", id: cell } : trial ? { kind: "trial", id: trial } : { kind: "close", id: match },
  );
}

describe("trials pages written in batches", () => {
  it("keep full pages, one well-formed section per cell and page, and every trial with its own calls", async () => {
    const trialCount = TRIALS_PER_PAGE * 2 + 37;
    const { dir, trials } = await writeLargeStudy(trialCount);
    // Some trials not run yet: they are listed (as pending, without calls) like the others.
    const pending = new Set(trials.filter((t) => t.index % 13 === 4).map((t) => t.id));
    const db = new Database(join(dir, "parallax.db"));
    db.prepare(`update trials set status = 'pending' where id in (${[...pending].map(() => "?").join(",")})`).run(
      ...pending,
    );
    db.prepare(`delete from calls where trial_id in (${[...pending].map(() => "?").join(",")})`).run(...pending);
    db.close();
    const store = await openStore(dir);
    let written: Awaited<ReturnType<typeof writeTrialsPages>>;
    try {
      const run = (await store.getRun())!;
      const plan = normalizePlan({ bootstrap: { resamples: 100 }, specification_curve: { permutations: 0 } });
      const { analysis } = await analyzeDirectory(dir, store, run, { plan });
      written = await writeTrialsPages({ store, run }, analysis, {
        indexPath: join(dir, "trials.html"),
        reportHref: "report.html",
      });
    } finally {
      await store.close();
    }
    const trialsOf = new Map(written.cells.map((c) => [c.id, c.trials]));
    const seen: string[] = [];
    // Cell -> its trials as the pages list them (a cell runs across pages).
    const listed = new Map<string, string[]>();
    written.pages.forEach((file, i) => {
      const html = readFileSync(join(dir, file), "utf8");
      const events = pageEvents(html);
      // Every page is full but the last.
      const onPage = events.filter((e) => e.kind === "trial").length;
      assert.equal(onPage, Math.min(TRIALS_PER_PAGE, trialCount - i * TRIALS_PER_PAGE), `${file}: trials on it`);
      // Sections open and close in turn, each cell once per page, each with its whole cell's count.
      const opened = new Set<string>();
      let open: string | undefined;
      for (const event of events) {
        if (event.kind === "open") {
          assert.equal(open, undefined, `${file}: ${event.id} opens inside ${open}`);
          assert.ok(!opened.has(event.id), `${file}: ${event.id} opens twice`);
          opened.add(event.id);
          open = event.id;
        } else if (event.kind === "close") {
          assert.notEqual(open, undefined, `${file}: a section closes that never opened`);
          open = undefined;
        } else {
          assert.notEqual(open, undefined, `${file}: trial ${event.id} outside a cell section`);
          seen.push(event.id);
          listed.set(open!, [...(listed.get(open!) ?? []), event.id]);
        }
      }
      assert.equal(open, undefined, `${file}: the last section is closed`);
      for (const id of opened) assert.ok(html.includes(`: ${trialsOf.get(id)} trial(s)</h3>`), `${file}: ${id} count`);
    });
    assert.deepEqual([...seen].sort(), trials.map((t) => t.id).sort(), "every trial exactly once");
    // The cells in their page order, each cell's trials in id order (as SQL orders the ids).
    assert.deepEqual(
      [...listed.keys()],
      written.cells.filter((c) => c.trials > 0).map((c) => c.id),
      "the cells follow in page order",
    );
    for (const [cell, ids] of listed) {
      assert.equal(ids.length, trialsOf.get(cell), `${cell}: all its trials listed`);
      assert.deepEqual(ids, [...ids].sort(), `${cell}: its trials in id order`);
    }
    // A cell runs across more than one page, so batches and pages split cells.
    assert.ok(
      written.cells.some((c) => c.pages.length > 1),
      "expected written.cells.some((c) => c.pages.length > 1)",
    );
    // Each article holds its own trial's call (the fixture's question names the item) or none when pending.
    const byId = new Map(trials.map((t) => [t.id, t]));
    for (const file of written.pages) {
      const articles = readFileSync(join(dir, file), "utf8").split('<article class="trial" id="t-').slice(1);
      for (const article of articles) {
        const id = article.slice(0, article.indexOf('"'));
        const t = byId.get(id)!;
        const calls = (article.match(/<details open>/g) ?? []).length;
        assert.equal(calls, pending.has(id) ? 0 : 1, `trial ${id}: its calls`);
        if (!pending.has(id))
          assert.ok(
            article.includes(`Question ${t.item}:`) || article.includes(`QUESTION ${t.item.toUpperCase()}:`),
            "expected article.includes(`Question ${t.item}:`) || article.includes(`QUESTION ${t.item.toUpperC...",
          );
        else assert.ok(article.includes("<strong>pending</strong>"), `trial ${id} shown as pending`);
      }
    }
  });

  it("refuses, writing no page, when a trial is planned while the pages are written", async () => {
    const { dir } = await writeLargeStudy(120);
    const store = await openStore(dir);
    try {
      const run = (await store.getRun())!;
      const plan = normalizePlan({ bootstrap: { resamples: 100 }, specification_curve: { permutations: 0 } });
      const { analysis } = await analyzeDirectory(dir, store, run, { plan });
      // Another process plans a trial right after the report has read the run's groups.
      const racing = new Proxy(store, {
        get(target, key, receiver) {
          if (key !== "trialGroups") return Reflect.get(target, key, receiver);
          return async (runId: string) => {
            const groups = await target.trialGroups(runId);
            const db = new Database(join(dir, "parallax.db"));
            db.exec(`create temp table late as select * from trials order by id limit 1;
              update late set id = 'ffffffffffffffffffffffff', status = 'pending';
              insert into trials select * from late;`);
            db.close();
            return groups;
          };
        },
      });
      await assert.rejects(
        writeTrialsPages({ store: racing, run }, analysis, {
          indexPath: join(dir, "trials.html"),
          reportHref: "r.html",
        }),
        /the run's trials changed while the report was written; run it again/,
      );
    } finally {
      await store.close();
    }
    assert.deepEqual(
      readdirSync(dir).filter((f) => f.startsWith("trials")),
      [],
      "no trials page or index is written",
    );
  });
});
