/** Asserts that no secret appears anywhere an error or result could carry it. */
import assert from "node:assert/strict";
import { inspect } from "node:util";

export function assertNoSecret(value: unknown, secrets: readonly string[]): void {
  const renderings = [
    value instanceof Error ? `${value.name}: ${value.message}\n${value.stack ?? ""}` : "",
    String(value),
    JSON.stringify(value) ?? "",
    inspect(value, { depth: 10, showHidden: true }),
  ];
  for (const secret of secrets) {
    for (const text of renderings) assert.ok(!text.includes(secret), `secret leaked in: ${text.slice(0, 300)}`);
  }
}
