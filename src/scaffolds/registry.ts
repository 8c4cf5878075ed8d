import type { CallMarkers } from "../contracts/call-markers.js";
import { Registry } from "../core/registry.js";
import { adjudicatedScaffold } from "./adjudicated.js";
import { agentReactScaffold } from "./agent-react.js";
import { collectCallMarkers } from "./call-markers.js";
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

/** Every registered scaffold's sub-call markers, read at call time so that plugin scaffolds count. */
export function registeredCallMarkers(): CallMarkers {
  return collectCallMarkers(scaffolds.names().map((name) => scaffolds.get(name)));
}
