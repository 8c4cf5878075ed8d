/**
 * The agent scaffold comparison's card: agent-card.json (the agents analysis's stored result)
 * and agent-card.md (its tables as `analyze --full` prints them), written for a study of this
 * kind whose agents analysis ran.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { registerKindCard } from "../core/kinds.js";
import { registeredAnalyses } from "../core/registry.js";

export const AGENT_CARD_JSON = "agent-card.json";
export const AGENT_CARD_MD = "agent-card.md";
const TITLE = "Agent comparison card";

registerKindCard({
  kind: "agents",
  title: TITLE,
  what: "agent scaffold comparison (GAIA)",
  file: AGENT_CARD_MD,
  write: (dir, { analysis, methodology }) => {
    const agents = analysis.agents;
    if (!agents || "skipped" in agents) return [];
    const source = analysis.meta.source;
    const lines =
      registeredAnalyses()
        .find((a) => a.name === "agents")
        ?.summary?.({ analysis, methodology }) ?? [];
    const written = [join(dir, AGENT_CARD_JSON), join(dir, AGENT_CARD_MD)];
    const header = { title: TITLE, study: source.study, runId: source.runId, analyzedAt: analysis.meta.analyzedAt };
    writeFileSync(written[0], `${JSON.stringify({ ...header, agents }, null, 2)}\n`);
    writeFileSync(
      written[1],
      [
        `# ${TITLE}`,
        "",
        `Study: ${source.study ?? source.path}${source.runId ? ` (run ${source.runId})` : ""}. Analysed ${analysis.meta.analyzedAt}.`,
        "",
        "```text",
        ...lines,
        "```",
        "",
      ].join("\n"),
    );
    return written;
  },
});
