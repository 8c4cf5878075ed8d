/**
 * The comparison's card: the scorecard (scorecard.json and scorecard.md), written for a study
 * of this kind only.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { registerKindCard } from "../core/kinds.js";

export const SCORECARD_JSON = "scorecard.json";
export const SCORECARD_MD = "scorecard.md";

registerKindCard({
  kind: "comparison",
  title: "Scaffold Safety Scorecard",
  what: "scaffold and format comparison (ScaffoldSafety)",
  file: SCORECARD_MD,
  carriesNotice: true,
  write: (dir, { scorecard }) => {
    const written = [join(dir, SCORECARD_JSON), join(dir, SCORECARD_MD)];
    writeFileSync(written[0], `${JSON.stringify(scorecard.json, null, 2)}\n`);
    writeFileSync(written[1], scorecard.markdown());
    return written;
  },
});
