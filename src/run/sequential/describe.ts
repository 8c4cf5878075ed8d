/** The lines `run` and `analyze` print about a sequential run's looks. */
import type { ContrastAtLook } from "./monitor.js";
import type { LookRecord } from "./run-looks.js";

const pp = (x: number) => `${(100 * x).toFixed(1)} pp`;

function contrastLine(c: ContrastAtLook, look: number): string {
  if (c.decidedAt !== null && c.decidedAt < look)
    return `    ${c.contrast}: decided at look ${c.decidedAt} (${c.decision})`;
  if (c.z === null || c.estimate === null || c.rci === null)
    return `    ${c.contrast}: ${c.items} item(s), no variation yet: no test`;
  const verdict = c.decision ? `stop: ${c.decision}` : c.crossed ? `crossed (${c.crossed}), continues` : "continue";
  return (
    `    ${c.contrast}: ${pp(c.estimate)}, z ${c.z.toFixed(2)} vs +/-${c.critical.toFixed(3)}, ` +
    `RCI [${pp(c.rci[0])}, ${pp(c.rci[1])}], ${c.items} items: ${verdict}`
  );
}

export function describeLooks(looks: readonly LookRecord[]): string[] {
  const first = looks[0];
  if (!first) return [];
  const { design } = first;
  const lines = [
    `sequential: ${design.looks.length} look(s) at ${design.looks.join(", ")} of the items, ${design.spending} spending, ` +
      `alpha ${design.alpha}; stops on ${design.stopOn.join(", ")}`,
  ];
  for (const look of looks) {
    lines.push(
      `  look ${look.look}/${design.looks.length} (${look.items} items, $${look.spent.costUsd.toFixed(2)} spent so far):`,
    );
    for (const c of look.contrasts) lines.push(contrastLine(c, look.look));
    if (look.end) {
      lines.push(
        `  ${look.end.early ? `stopped early at look ${look.look}` : "ran to the last look"}: ` +
          `${look.end.trialsNotRun} trial(s) not run, about ${look.end.callsNotSpent} call(s) and $${look.end.costNotSpentUsd.toFixed(2)} not spent`,
      );
    }
  }
  return lines;
}
