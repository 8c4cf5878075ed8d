import * as z from "zod";

/**
 * The self-audit chronology (Auditing the Audit, Box 1): one entry per failure the audit ran
 * into, with the eight fields a reader needs to audit the audit. Stored as DIR/chronology.jsonl,
 * one entry a line, appended by `parallax audit log DIR --add ENTRY` or edited by hand and
 * checked by `parallax audit check DIR` (and by every `analyze`).
 */

export const CHRONOLOGY_FILE = "chronology.jsonl";

export const CHRONOLOGY_STATUSES = ["FIXED", "DISCLOSED-UNFIXED", "OUT-OF-SCOPE"] as const;

/** Box 1's eight fields: the entry key of each, and what it holds (for error messages and docs). */
export const CHRONOLOGY_FIELDS = [
  { key: "id", box: 1, what: "a stable bug ID" },
  { key: "failure_class", box: 1, what: "the failure class (F1-F5 or a project-local code)" },
  { key: "discovered", box: 2, what: "the discovery date and how it was found ({date, how})" },
  { key: "affected_cells", box: 3, what: "every model x benchmark cell the defect touched" },
  { key: "symptom", box: 4, what: "the symptom as it appeared in the reported numbers" },
  { key: "provenance", box: 5, what: "inherited from the initial pipeline, or repair-introduced" },
  { key: "fix", box: 6, what: "the fix (the code change) and a regression test that fails before it" },
  { key: "delta", box: 7, what: "the before/after delta on the headline statistic for each affected cell" },
  { key: "status", box: 8, what: "FIXED, DISCLOSED-UNFIXED or OUT-OF-SCOPE" },
  { key: "status_reason", box: 8, what: "why that is the residual status" },
] as const;

const text = z.string().trim().min(1, "must not be empty");

const CellSchema = z.object({ model: text, benchmark: text }).strict();

const DeltaSchema = z
  .object({
    model: text,
    benchmark: text,
    /** The headline statistic the delta is on (e.g. "CSR", "accuracy"). */
    statistic: text,
    before: z.number().nullable(),
    /** Null while unfixed: there is no after. */
    after: z.number().nullable(),
  })
  .strict();

export const ChronologyEntrySchema = z
  .object({
    id: text,
    failure_class: text,
    discovered: z
      .object({
        date: z.iso.date("must be a date YYYY-MM-DD"),
        how: text,
      })
      .strict(),
    affected_cells: z.array(CellSchema).min(1, "must name at least one model x benchmark cell"),
    symptom: text,
    provenance: z.enum(["inherited", "repair-introduced"]),
    fix: z
      .object({
        /** The specific code change; null only for an entry that is not FIXED. */
        change: text.nullable(),
        regression_test: text.nullable(),
      })
      .strict(),
    delta: z.array(DeltaSchema).min(1, "must give the before/after delta of each affected cell"),
    status: z.enum(CHRONOLOGY_STATUSES),
    status_reason: text.optional(),
  })
  .strict()
  .superRefine((entry, ctx) => {
    if (entry.status === "FIXED") {
      if (entry.fix.change === null)
        ctx.addIssue({ code: "custom", path: ["fix", "change"], message: "a FIXED entry names its code change" });
      if (entry.fix.regression_test === null)
        ctx.addIssue({
          code: "custom",
          path: ["fix", "regression_test"],
          message: "a FIXED entry names the regression test that fails on the pre-fix code",
        });
    } else if (entry.status_reason === undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["status_reason"],
        message: `a ${entry.status} entry says why it stays so`,
      });
    }
    entry.affected_cells.forEach((cell, index) => {
      if (!entry.delta.some((d) => d.model === cell.model && d.benchmark === cell.benchmark))
        ctx.addIssue({
          code: "custom",
          path: ["delta"],
          message: `no before/after delta for affected cell ${cell.model} x ${cell.benchmark} (affected_cells[${index}])`,
        });
    });
  });

export type ChronologyEntry = z.infer<typeof ChronologyEntrySchema>;

/** Box 1's "per chronology as a whole": the totals a reader checks first. */
export interface ChronologyTotals {
  entries: number;
  repairIntroduced: number;
  byStatus: Record<(typeof CHRONOLOGY_STATUSES)[number], number>;
  /** Entries not FIXED, with why. */
  unfixed: { id: string; status: string; reason: string }[];
}

export interface Chronology {
  file: string;
  entries: ChronologyEntry[];
  totals: ChronologyTotals;
}
