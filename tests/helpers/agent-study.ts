/**
 * Small agent studies for runner tests: a GAIA-format task folder written for the tests (a CSV
 * to sum, a "PDF" attachment, a task without files) and a spec running the agent scaffolds on
 * the simulated panel with real sandboxed tools.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export const AGENT_TASKS = [
  {
    id: "t-csv",
    question: "The attached file boxes.csv lists orders. How many boxes in total?",
    file: "boxes.csv",
    answer: "47",
  },
  {
    id: "t-pdf",
    question: "The attached report.pdf states a year. Which year is it?",
    file: "report.pdf",
    answer: "1871",
  },
  { id: "t-none", question: "What is 17 multiplied by 23?", file: "", answer: "391" },
];

export interface AgentSpecOptions {
  /** The `agent:` options of the one sim model (YAML flow mapping). */
  agent?: string;
  ability?: number;
  scaffolds?: string[];
  attempts?: number;
  /** The spec's agent_limits (YAML flow mapping). */
  limits?: string;
  temperature?: number;
}

export function writeAgentStudy(options: AgentSpecOptions = {}): { dir: string; specPath: string; outDir: string } {
  const dir = mkdtempSync(join(tmpdir(), "parallax-agents-"));
  const data = join(dir, "tasks", "validation");
  mkdirSync(data, { recursive: true });
  writeFileSync(join(data, "boxes.csv"), "order,boxes\nA,12\nB,30\nC,5\n");
  mkdirSync(join(dir, "library"));
  writeFileSync(
    join(dir, "library", "products.txt"),
    "Products\nSeventeen crates of twenty-three jars make 391 jars.\n",
  );
  writeFileSync(join(data, "report.pdf"), "%PDF-1.4 (a stand-in: the year is 1871)\n");
  writeFileSync(
    join(data, "metadata.jsonl"),
    AGENT_TASKS.map((t) =>
      JSON.stringify({ task_id: t.id, Question: t.question, Level: 1, "Final answer": t.answer, file_name: t.file }),
    ).join("\n"),
  );
  const scaffolds = options.scaffolds ?? ["agent_react", "planner_actor_rater", "planner_executor"];
  const spec = `study: agent-test
seed: 5
models:
  - id: sim-agent
    provider: sim
    model: agent
    params: { temperature: ${options.temperature ?? 0.7}, max_tokens: 256 }
    options: { ability: ${options.ability ?? 1}, agent: ${options.agent ?? "{}"} }
benchmarks:
  - { id: tasks, loader: gaia, source: tasks }
conditions:
  facets:
    scaffold: [${scaffolds.join(", ")}]
    format: [oe]
attempts: ${options.attempts ?? 1}
${options.limits ? `agent_limits: ${options.limits}\n` : ""}agents:
  web: { backend: offline, folder: library }
execution:
  concurrency: 3
`;
  const specPath = join(dir, "study.yaml");
  writeFileSync(specPath, spec);
  return { dir, specPath, outDir: join(dir, "out") };
}
