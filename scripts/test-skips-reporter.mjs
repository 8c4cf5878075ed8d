// A node:test reporter that writes one JSON line per finished test (passed, failed or skipped
// with its reason) and per skipped suite, for scripts/test.mjs's closing summary.
export default async function* testOutcomes(source) {
  for await (const event of source) {
    if (event.type !== "test:pass" && event.type !== "test:fail") continue;
    const { skip, name, file, details } = event.data;
    const suite = details?.type === "suite";
    const skipped = skip !== undefined && skip !== false;
    if (suite && !skipped) continue;
    const outcome = skipped ? "skip" : event.type === "test:pass" ? "pass" : "fail";
    const reason = skipped ? (typeof skip === "string" ? skip : "skipped without a reason") : undefined;
    yield `${JSON.stringify({ name, file, outcome, reason, suite })}\n`;
  }
}
