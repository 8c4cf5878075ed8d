import { Registry } from "../core/registry.js";
import { adjudicatedScaffold } from "./adjudicated.js";
import { agentReactScaffold } from "./agent-react.js";
import { cotScaffold } from "./cot.js";
import { criticScaffold } from "./critic.js";
import { directScaffold } from "./direct.js";
import { invocationChainScaffold } from "./invocation-chain.js";
import { mapReduceStandardScaffold } from "./map-reduce.js";
import { mapReduceOptionsScaffold } from "./map-reduce-options.js";
import { plannerActorRaterScaffold } from "./planner-actor-rater.js";
import { plannerExecutorScaffold } from "./planner-executor.js";
import { reactScaffold } from "./react.js";
import type { Scaffold } from "./types.js";

export const scaffolds = new Registry<Scaffold>("scaffold");
for (const scaffold of [
  directScaffold,
  cotScaffold,
  reactScaffold,
  criticScaffold,
  mapReduceStandardScaffold,
  mapReduceOptionsScaffold,
  invocationChainScaffold,
  adjudicatedScaffold,
  agentReactScaffold,
  plannerActorRaterScaffold,
  plannerExecutorScaffold,
]) {
  scaffolds.register(scaffold.name, scaffold);
}
