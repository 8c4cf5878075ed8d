/**
 * The answer-format facet `format`: how an item is shown (mc, oe, forced). It is the first task
 * stage: renderTrialTask starts from the item rendered in this format (datasets/format.ts).
 */
import { ANSWER_FORMATS } from "../datasets/format.js";
import type { Facet } from "./types.js";

export const formatFacet: Facet = {
  name: "format",
  description: "the answer format the item is shown in: mc (options), oe (open-ended), forced",
  stage: "format",
  knownValues: () => ANSWER_FORMATS,
};
