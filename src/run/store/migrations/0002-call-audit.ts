/**
 * Migration 0002: nullable audit columns on calls; older rows read them as "not audited".
 */
import type { Kysely, Migration } from "kysely";

// biome-ignore lint/suspicious/noExplicitAny: kysely's Migration signature takes Kysely<any>
type AnyDb = Kysely<any>;

export const callAudit: Migration = {
  async up(db: AnyDb) {
    // One column per statement: SQLite's ALTER TABLE adds a single column.
    await db.schema.alterTable("calls").addColumn("audit_options_reached", "integer").execute();
    await db.schema.alterTable("calls").addColumn("audit_system_prompt_retained", "double precision").execute();
    await db.schema.alterTable("calls").addColumn("audit_safety_reached", "integer").execute();
    await db.schema.alterTable("calls").addColumn("audit_persona_leak", "text").execute();
    await db.schema.alterTable("calls").addColumn("note", "text").execute();
  },
  async down(db: AnyDb) {
    for (const column of [
      "note",
      "audit_persona_leak",
      "audit_safety_reached",
      "audit_system_prompt_retained",
      "audit_options_reached",
    ]) {
      await db.schema.alterTable("calls").dropColumn(column).execute();
    }
  },
};
