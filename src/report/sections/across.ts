/**
 * Across studies: when other study folders beside this one hold the same items, the exact
 * `parallax compare` and `parallax profile` commands that pair them; otherwise nothing.
 */
import { el } from "../html.js";
import { type ReportContext, registerReportSection } from "./registry.js";

/** A path as one shell word. */
function shellWord(path: string): string {
  return /^[A-Za-z0-9_./:@-]+$/.test(path) ? path : `'${path.replace(/'/g, `'\\''`)}'`;
}

function across({ options }: ReportContext) {
  const beside = options.studiesBeside ?? [];
  const here = options.studyDir;
  if (beside.length === 0 || !here) return "";
  const [first] = beside;
  const named = beside.map((b) => `${b.dir} (${b.sharedItems} shared item${b.sharedItems === 1 ? "" : "s"})`);
  return [
    el("h2", { id: "across" }, "Across studies"),
    el(
      "p",
      { class: "across" },
      `Beside this study, ${beside.length === 1 ? "one study folder holds" : `${beside.length} study folders hold`} some of its items: ${named.join("; ")}. Pair this study with ${beside.length === 1 ? "it" : "the first"} item by item (B - A per matched cell), or profile every model across all of them:`,
    ),
    el(
      "pre",
      { class: "across" },
      `parallax compare ${shellWord(here)} ${shellWord(first.dir)}\nparallax profile ${[here, ...beside.map((b) => b.dir)].map(shellWord).join(" ")}`,
    ),
  ];
}

registerReportSection({
  name: "across",
  toc: { id: "across", label: "Across studies" },
  render: across,
});
