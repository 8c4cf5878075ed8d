import { mapReduceScaffold } from "./map-reduce.js";

/**
 * Option-preserving map-reduce (ScaffoldSafety 5.2): identical to map_reduce except that every
 * map call also receives the MC options, closing the format channel the decomposition strips.
 */
export const mapReduceOptionsScaffold = mapReduceScaffold("map_reduce_options", true);
