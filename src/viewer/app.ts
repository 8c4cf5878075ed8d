/**
 * The viewer's routes (hono): `/` the trial list (filters, search, keyset pages), `/trials/:id`
 * one trial's trajectory, `/compare?a=&b=` two trials side by side, `/pair?a=&b=` a trial of this
 * study beside one of the second study (`view A --with B`), and the style sheet. Every page is
 * rendered on the server from escaped text; no script is served.
 */
import { Hono } from "hono";
import { el } from "../report/html.js";
import { FilterError, readFilters, toTrialQuery } from "./filters.js";
import { STYLESHEET_PATH, VIEWER_CSS, viewerPage } from "./layout.js";
import { PAIR_PATH } from "../analysis/across-studies/compare-links.js";
import { renderCompare } from "./pages/compare.js";
import { renderPair } from "./pages/pair.js";
import { PAGE_SIZE, renderList } from "./pages/list.js";
import { renderTrial } from "./pages/trial.js";
import { allowedHostsOnly, originFormOnly, securityHeaders } from "./security.js";
import type { ViewerStudy } from "./study.js";
import { getTrial, loadTrialData } from "./trial-data.js";

export interface ViewerAppOptions {
  /** The Host check: the names allowed and the port the server listens on; omit to skip it (tests of pages). */
  hostCheck?: { names: readonly string[]; port: () => number };
  /** A second study (B), opened read-only, whose trials `/pair` shows beside this study's (A). */
  pairWith?: ViewerStudy;
}

export function createViewerApp(study: ViewerStudy, options: ViewerAppOptions = {}): Hono {
  const app = new Hono();
  app.use("*", securityHeaders());
  if (options.hostCheck) app.use("*", allowedHostsOnly(options.hostCheck.names, options.hostCheck.port));
  app.use("*", originFormOnly());

  app.get(STYLESHEET_PATH, (c) => c.body(VIEWER_CSS, 200, { "Content-Type": "text/css; charset=utf-8" }));

  app.get("/", async (c) => {
    const params = new URL(c.req.url).searchParams;
    const filters = readFilters(params, study);
    const after = params.get("after") ?? undefined;
    const before = params.get("before") ?? undefined;
    const page = await study.store.browseTrials(study.run.id, toTrialQuery(filters, study), {
      after,
      before,
      limit: PAGE_SIZE,
    });
    const backwards = before !== undefined && after === undefined;
    const list = {
      trials: page.trials,
      next: backwards ? true : page.more,
      previous: backwards ? page.more : after !== undefined,
    };
    return c.html(renderList(study, filters, list));
  });

  app.get("/trials/:id", async (c) => {
    const trial = await getTrial(study, c.req.param("id"));
    if (!trial) return c.html(notFound(`no trial ${c.req.param("id")} in run ${study.run.id}`), 404);
    return c.html(renderTrial(study, await loadTrialData(study, trial)));
  });

  app.get("/compare", async (c) => {
    const [a, b] = await Promise.all([
      getTrial(study, c.req.query("a") ?? ""),
      getTrial(study, c.req.query("b") ?? ""),
    ]);
    if (!a || !b) return c.html(notFound("compare needs two trials of this run: /compare?a=ID&b=ID"), 404);
    const [da, db] = await Promise.all([loadTrialData(study, a), loadTrialData(study, b)]);
    return c.html(renderCompare(study, da, db));
  });

  app.get(PAIR_PATH, async (c) => {
    const other = options.pairWith;
    if (!other) return c.html(notFound("no second study: start the viewer with parallax view A --with B"), 404);
    const [a, b] = await Promise.all([
      getTrial(study, c.req.query("a") ?? ""),
      getTrial(other, c.req.query("b") ?? ""),
    ]);
    if (!a || !b) {
      const missing = !a
        ? `no trial '${c.req.query("a") ?? ""}' in A (run ${study.run.id})`
        : `no trial '${c.req.query("b") ?? ""}' in B (run ${other.run.id})`;
      return c.html(notFound(`${missing}; the pair page is ${PAIR_PATH}?a=ID_IN_A&b=ID_IN_B`), 404);
    }
    const [da, db] = await Promise.all([loadTrialData(study, a), loadTrialData(other, b)]);
    return c.html(renderPair({ side: "A", study, data: da }, { side: "B", study: other, data: db }));
  });

  app.notFound((c) => c.html(notFound(`no page ${new URL(c.req.url).pathname}`), 404));
  app.onError((error, c) => {
    if (error instanceof FilterError)
      return c.html(viewerPage("Bad filter", el("p", { id: "error" }, error.message)), 400);
    return c.html(viewerPage("Error", el("p", { id: "error" }, `viewer error: ${error.message}`)), 500);
  });
  return app;
}

function notFound(message: string): string {
  return viewerPage("Not found", el("p", { id: "error" }, message));
}
