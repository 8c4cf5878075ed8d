/**
 * A provider whose successful replies echo the API key (raw, base64 at every alignment,
 * URL-encoded): the key is found nowhere afterwards, not in the store (trials, calls, cache),
 * the study directory, the jsonl, CSV, Parquet and EEE exports, the report, nor the command's output.
 * And one whose 401 error body echoes it in every encoding: `run` prints the failure, and the key
 * is in none of its output, the store or the study folder.
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { encodedForms } from "../../src/core/secrets.js";
import { runCli } from "../helpers/cli.js";
import { startOpenAIMock } from "../helpers/mock-openai.js";
import type { MockServer } from "../helpers/mock-server.js";
import { startCli } from "../helpers/postgres-run.js";
import { writeDemoSpec } from "../helpers/study.js";

const KEY = "sk-echoed-secret-5f3a9c2e7b1d4086";
/** A key whose URL-encoded and JSON-escaped forms differ from it. */
const ODD_KEY = 'sk-pro"j\\ect/key+9f8e7d6c5b4a3210';
const env = { ...process.env, PARALLAX_ECHO_TEST_KEY: KEY, PARALLAX_ECHO_TEST_ODD_KEY: ODD_KEY };

let mock: MockServer;
before(async () => {
  mock = await startOpenAIMock([KEY, ODD_KEY]);
});
after(() => mock.close());

/** A successful chat completion whose text carries the key in one of its forms. */
function echoing(content: string) {
  return {
    kind: "json" as const,
    status: 200,
    body: {
      id: "chatcmpl-echo",
      object: "chat.completion",
      created: 1_700_000_000,
      model: "gpt-4o-mini",
      choices: [{ index: 0, message: { role: "assistant", content }, logprobs: null, finish_reason: "stop" }],
      usage: { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 },
    },
  };
}

/** Every file under `dir`, as latin1 text (binary stores and Parquet included). */
function filesUnder(dir: string): Array<[string, string]> {
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .map((name) => join(dir, name))
    .filter((path) => statSync(path).isFile())
    .map((path) => [path, readFileSync(path).toString("latin1")]);
}

/** A study of `items` MC trials on the OpenAI mock, its key read from `keyEnv`, one call at a time, no retries. */
function mockStudy(items: number, keyEnv: string) {
  return writeDemoSpec({
    items,
    models: `  - id: gpt
    provider: openai
    model: gpt-4o-mini
    base_url: ${mock.url}/v1
    api_key_env: ${keyEnv}
    params: { temperature: 0, max_tokens: 64 }`,
    execution: "  concurrency: 1\n  max_retries: 0",
  });
}

test("a key echoed in successful replies is stored and exported nowhere", async () => {
  const { specPath, outDir, dir } = mockStudy(4, "PARALLAX_ECHO_TEST_KEY");
  const base64 = (prefix: string) => Buffer.from(`${prefix}${KEY}`).toString("base64");
  mock.enqueue(
    echoing(`My key is ${KEY}. ANSWER: A`),
    echoing(`Encoded ${base64("")} and ${base64("x")} ANSWER: B`),
    echoing(`Shifted ${base64("xy")} ANSWER: A`),
    echoing(`As a URL: https://example.com/?k=${encodeURIComponent(`${KEY}/+`)} ANSWER: C`),
  );
  const run = await startCli(["run", specPath, "--out", outDir], env).done;
  assert.equal(run.status, 0, run.stderr);
  const echoed = mock.requests.filter((r) => r.path.endsWith("/chat/completions")).length;
  assert.ok(echoed >= 4, `the four echoing replies were used (${echoed} calls)`);

  const outputs: Array<[string, string]> = [["run output", run.stdout + run.stderr]];
  for (const [table, format] of [
    ["calls", "jsonl"],
    ["trials", "jsonl"],
    ["calls", "csv"],
  ]) {
    const exported = runCli(["export", outDir, "--table", table, "--format", format], { env });
    assert.equal(exported.status, 0, exported.stderr);
    outputs.push([`${table}.${format}`, exported.stdout + exported.stderr]);
  }
  for (const [format, output] of [
    ["parquet", join(dir, "calls.parquet")],
    ["eee", join(dir, "eee")],
  ]) {
    const args = ["export", outDir, "--table", "calls", "--format", format, "--output", output];
    const exported = runCli(args, { env });
    assert.equal(exported.status, 0, exported.stderr);
  }
  // Four scripted answers among mock echoes: analyze may flag the measurement (exit 3), and still writes.
  const analyzed = runCli(["analyze", outDir], { env });
  assert.ok(analyzed.status === 0 || analyzed.status === 3, analyzed.stderr);
  const report = runCli(["report", outDir], { env });
  assert.equal(report.status, 0, report.stderr);
  outputs.push(["analyze", analyzed.stdout + analyzed.stderr], ["report", report.stdout + report.stderr]);
  const everything = [...outputs, ...filesUnder(dir)];
  assert.ok(
    everything.some(([, text]) => text.includes("[redacted]")),
    "the echoed key was replaced by [redacted] somewhere (so the replies were stored)",
  );
  const forms = encodedForms(KEY);
  for (const [where, text] of everything) {
    for (const form of forms) assert.equal(text.includes(form), false, `the key (as '${form}') is in ${where}`);
  }
});

test("the key's base64 forms match it wherever it sits in encoded text", async () => {
  const { clearSecrets, registerSecrets, scrubSecrets } = await import("../../src/core/secrets.js");
  registerSecrets([KEY]);
  try {
    for (const prefix of ["", "a", "ab", "abc", "abcd"]) {
      for (const suffix of ["", "z", "zz"]) {
        const encoded = Buffer.from(`${prefix}${KEY}${suffix}`).toString("base64");
        for (const variant of [encoded, encoded.replaceAll("+", "-").replaceAll("/", "_")]) {
          assert.match(scrubSecrets(variant), /\[redacted\]/, `base64 of '${prefix}KEY${suffix}'`);
        }
      }
    }
    assert.equal(scrubSecrets("nothing secret here"), "nothing secret here");
  } finally {
    clearSecrets();
  }
});

/** A 401 in the API's error shape whose message echoes the key in every encoding it may take. */
function unauthorizedEchoing(key: string) {
  const blob = (prefix: string, encoding: BufferEncoding) =>
    Buffer.from(`${prefix}{"authorization":"Bearer ${key}"}`).toString(encoding);
  const echoes = [
    `Incorrect API key provided: ${key}.`,
    `url=${encodeURIComponent(key)}`,
    `json=${JSON.stringify({ key })}`,
    `hex=${Buffer.from(key).toString("hex")} HEX=${blob("", "hex").toUpperCase()}`,
    ...["", "a", "ab"].map((prefix) => `base64=${blob(prefix, "base64")} base64url=${blob(prefix, "base64url")}`),
  ];
  return {
    kind: "json" as const,
    status: 401,
    body: { error: { message: echoes.join(" "), type: "invalid_request_error", param: null, code: "invalid_api_key" } },
  };
}

test("a key echoed in a 401 body, in every encoding, reaches neither the terminal nor any file", async () => {
  const { specPath, outDir, dir } = mockStudy(2, "PARALLAX_ECHO_TEST_ODD_KEY");
  mock.enqueue(unauthorizedEchoing(ODD_KEY));
  const run = await startCli(["run", specPath, "--out", outDir], env).done;
  assert.equal(run.status, 4, run.stderr);
  assert.match(run.stdout, /stopped: authentication failed \(.*HTTP 401.*\[redacted\]/);
  const everything: Array<[string, string]> = [["stdout", run.stdout], ["stderr", run.stderr], ...filesUnder(dir)];
  const forms = encodedForms(ODD_KEY);
  // Raw, URL-encoded, JSON-escaped, hex, HEX, base64 at three alignments (base64url is the same here).
  assert.equal(forms.length, 8, forms.join(" "));
  for (const [where, text] of everything) {
    for (const form of forms) assert.equal(text.includes(form), false, `the key (as '${form}') is in ${where}`);
  }
});
