/**
 * The value schemas the analysis plan's sections share: a facet (column) name, a family name, a
 * proportion strictly between 0 and 1, and a multiplicity correction.
 */
import * as z from "zod";
import { lazySchema } from "../lazy-schema.js";

export const facetName = lazySchema(() => z.string().regex(/^[A-Za-z][A-Za-z0-9_]*$/, "a facet (column) name"));
export const familyName = lazySchema(() => z.string().regex(/^[A-Za-z][A-Za-z0-9_-]*$/, "a family name"));
export const proportion = lazySchema(() => z.number().gt(0).lt(1));

export const MultiplicityMethodSchema = lazySchema(() =>
  z.enum(["bonferroni", "holm", "hochberg", "hommel", "bh", "by"]),
);

export type MultiplicityMethod = z.infer<typeof MultiplicityMethodSchema>;
