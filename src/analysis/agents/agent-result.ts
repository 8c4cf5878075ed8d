/** The per-slice result shapes of the agent analyses (agents-analysis.ts), which its tables (agents-tables.ts) read. */
import type { Monotonicity } from "../../stats/index.js";
import type { CellEstimates, DodEstimate, GapEstimate, PairEstimate } from "./estimates.js";
import type { CellOutcomes } from "./outcomes.js";
import type { SliceName } from "./units.js";

export interface AgentCell extends CellEstimates {
  model: string;
  scaffold: string;
  outcomes: CellOutcomes;
  /** On the accuracy vs realized cost-per-correct Pareto frontier of its slice and level. */
  onFrontier: boolean;
}

export interface TierLadder {
  models: string[];
  gaps: (number | null)[];
  /** How the gap moves from the least to the most capable model; null when a gap is undefined. */
  reading: Monotonicity | null;
}

export interface AgentSliceLevel {
  slice: SliceName;
  level: string;
  questions: number;
  cells: AgentCell[];
  gaps: GapEstimate[];
  pairwise: PairEstimate[];
  dod: DodEstimate[];
  /** Cells on the Pareto frontier, cheapest first ("model · scaffold"). */
  frontier: string[];
  ladder: TierLadder | null;
}
