import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { describe } from "node:test";
import type { Toolbox } from "../../src/contracts/tool.js";
import { InputError } from "../../src/core/errors.js";
import { DEFAULT_SANDBOX_LIMITS, runSandboxed, toolResultOf } from "../../src/tools/sandbox.js";
import { createToolbox } from "../../src/tools/toolbox.js";
import { after, describeNeeding, it, needsBubblewrap } from "../helpers/prerequisites.js";

const boxes: Toolbox[] = [];
async function toolbox(options: Parameters<typeof createToolbox>[0] = {}): Promise<Toolbox> {
  const box = await createToolbox(options);
  boxes.push(box);
  return box;
}
after(async () => {
  for (const box of boxes) await box.dispose();
});

let callNumber = 0;
function call(box: Toolbox, name: string, args: Record<string, unknown> | string) {
  callNumber += 1;
  return box.invoke({
    id: `call-${callNumber}`,
    name,
    arguments: typeof args === "string" ? args : JSON.stringify(args),
  });
}

/** Host processes whose command line holds the marker (a sandbox left running would show here). */
function processesWith(marker: string): number[] {
  return readdirSync("/proc")
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(marker);
      } catch {
        return false;
      }
    })
    .map(Number);
}

describeNeeding(needsBubblewrap(), "sandbox: network", () => {
  it("cannot connect to a port the test listens on, and cannot resolve names", async () => {
    let connections = 0;
    const server = createServer((socket) => {
      connections += 1;
      socket.end();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const port = (server.address() as { port: number }).port;
    try {
      const box = await toolbox();
      const code = [
        "import socket",
        "for target in [('127.0.0.1', PORT), ('10.0.0.1', 80)]:",
        "    try:",
        "        socket.create_connection(target, timeout=3)",
        "        print('connected', target)",
        "    except OSError as error:",
        "        print('refused', target, type(error).__name__)",
        "try:",
        "    socket.getaddrinfo('example.com', 443)",
        "    print('resolved')",
        "except OSError as error:",
        "    print('no dns', type(error).__name__)",
      ].join("\n");
      const result = await call(box, "python", { code: code.replaceAll("PORT", String(port)) });
      assert.equal(result.error, undefined, result.output);
      assert.doesNotMatch(result.output, /connected|resolved/);
      assert.match(result.output, new RegExp(`refused \\('127\\.0\\.0\\.1', ${port}\\)`));
      assert.match(result.output, /refused \('10\.0\.0\.1', 80\)/);
      assert.match(result.output, /no dns/);
      assert.equal(connections, 0);
    } finally {
      server.close();
    }
  });
});

describeNeeding(needsBubblewrap(), "sandbox: filesystem", () => {
  it("cannot write outside its work dir; writes inside persist to the next call", async () => {
    const box = await toolbox();
    const probe = `parallax-probe-${process.pid}-${Date.now()}`;
    const outside = [join("/etc", probe), join(homedir(), probe), join(process.cwd(), probe), join("/usr", probe)];
    const hostTmp = join(tmpdir(), probe);
    try {
      for (const path of outside) {
        const result = await call(box, "bash", { cmd: `echo x > '${path}'` });
        assert.ok(result.error, `writing ${path} should fail: ${result.output}`);
        assert.equal(existsSync(path), false, `${path} was written`);
      }
      // /tmp inside is the sandbox's own tmpfs: writable, and gone with the call.
      const tmp = await call(box, "bash", { cmd: `echo x > '${hostTmp}' && cat '${hostTmp}'` });
      assert.equal(tmp.output, "x\n");
      assert.equal(existsSync(hostTmp), false);
      const wrote = await call(box, "bash", { cmd: "echo kept > note.txt && echo done" });
      assert.equal(wrote.error, undefined, wrote.output);
      assert.equal(readFileSync(join(box.workDir, "note.txt"), "utf8"), "kept\n");
      const read = await call(box, "python", { code: "print(open('/workspace/note.txt').read().strip())" });
      assert.equal(read.output.trim(), "kept");
    } finally {
      for (const path of [...outside, hostTmp]) rmSync(path, { force: true });
    }
  });

  it("copies the attachments into the work dir and refuses a missing one", async () => {
    const dir = join(tmpdir(), `parallax-attach-${process.pid}`);
    rmSync(dir, { recursive: true, force: true });
    const { mkdirSync } = await import("node:fs");
    mkdirSync(dir);
    const csv = join(dir, "numbers.csv");
    const rows = [3, 5, 11];
    writeFileSync(csv, `n\n${rows.join("\n")}\n`);
    try {
      const box = await toolbox({ attachments: [csv] });
      const result = await call(box, "python", {
        code: "import csv\nprint(sum(int(r['n']) for r in csv.DictReader(open('numbers.csv'))))",
      });
      assert.equal(result.output.trim(), String(rows.reduce((a, b) => a + b, 0)));
      await assert.rejects(createToolbox({ attachments: [join(dir, "missing.pdf")] }), (error: unknown) => {
        return error instanceof InputError && /missing\.pdf/.test(error.message);
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describeNeeding(needsBubblewrap(), "sandbox: processes and scratch space", () => {
  it("sees only its own processes, and a size-capped private /tmp", async () => {
    const box = await toolbox();
    const result = await call(box, "bash", {
      cmd: "ls /proc | grep -cE '^[0-9]+$'; test -e /proc/PID && echo host-visible; df -B1 --output=size /tmp | tail -1".replace(
        "PID",
        String(process.pid),
      ),
    });
    const [processCount, ...rest] = result.output.trim().split("\n");
    // bwrap's init, bash, ls and grep (the pipeline's processes), nothing of the host.
    assert.ok(Number(processCount) <= 5, result.output);
    assert.ok(!result.output.includes("host-visible"), 'expected !result.output.includes("host-visible")');
    assert.equal(Number(rest.at(-1)?.trim()), 256 * 1024 * 1024);
  });
});

describeNeeding(needsBubblewrap(), "sandbox: environment", () => {
  it("sees none of the parent's variables, API keys included", async () => {
    const secrets = {
      OPENAI_API_KEY: "sk-test-sandbox-0000000000000001",
      ANTHROPIC_API_KEY: "sk-ant-test-sandbox-0000000002",
      GEMINI_API_KEY: "gm-test-sandbox-00000000000003",
    };
    const saved = Object.fromEntries(Object.keys(secrets).map((name) => [name, process.env[name]]));
    Object.assign(process.env, secrets);
    try {
      const box = await toolbox();
      const result = await call(box, "bash", { cmd: "cat /proc/*/environ 2>/dev/null | tr '\\0' '\\n'; echo; env" });
      assert.equal(result.error, undefined, result.output);
      for (const [name, value] of Object.entries(secrets)) {
        assert.ok(!result.output.includes(name), `${name} visible`);
        assert.ok(!result.output.includes(value), `value of ${name} visible`);
      }
      const names = new Set(
        result.output.split("\n").flatMap((line) => (/^\w+=/.test(line) ? [line.split("=")[0]] : [])),
      );
      const expected = new Set(["PATH", "HOME", "LANG", "PYTHONDONTWRITEBYTECODE", "PWD", "SHLVL", "_"]);
      assert.deepEqual(
        [...names].filter((name) => !expected.has(name)),
        [],
      );
    } finally {
      for (const [name, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
  });
});

describeNeeding(needsBubblewrap(), "sandbox: limits", () => {
  it("kills a sleep loop at the wall time limit, with everything it started", async () => {
    const marker = `wall-marker-${process.pid}`;
    const box = await toolbox({ limits: { wallSeconds: 1 } });
    const result = await call(box, "bash", { cmd: `while true; do sleep 0.2; done # ${marker}` });
    assert.equal(result.limitHit, "wall");
    assert.match(result.error ?? "", /wall time limit of 1 s/);
    assert.ok(result.durationMs >= 1000, "expected result.durationMs >= 1000");
    assert.deepEqual(processesWith(marker), []);
  });

  it("kills a busy loop at the CPU time limit", async () => {
    const box = await toolbox({ limits: { cpuSeconds: 1, wallSeconds: 60 } });
    const result = await call(box, "python", { code: "while True:\n    pass" });
    assert.equal(result.limitHit, "cpu");
    assert.match(result.error ?? "", /CPU time limit of 1 s/);
  });

  it("cuts the output at the cap and marks the cut", async () => {
    const cap = 1000;
    const box = await toolbox({ limits: { outputBytes: cap } });
    const flood = await call(box, "bash", { cmd: "yes parallax" });
    assert.equal(flood.limitHit, "output");
    const kept = flood.output.split("\n[output cut")[0];
    assert.equal(Buffer.byteLength(kept), cap);
    assert.match(flood.output, new RegExp(`\\[output cut at ${cap} bytes\\]`));
    const small = await call(box, "bash", { cmd: "seq 1 50" });
    assert.equal(small.limitHit, undefined);
    assert.equal(small.output, `${Array.from({ length: 50 }, (_, i) => i + 1).join("\n")}\n`);
  });

  it("refuses forks beyond the process limit", async () => {
    const maxProcesses = 12;
    const box = await toolbox({ limits: { maxProcesses } });
    const code = [
      "import os, time",
      "children = 0",
      "for _ in range(100):",
      "    try:",
      "        pid = os.fork()",
      "    except BlockingIOError:",
      "        break",
      "    if pid == 0:",
      "        time.sleep(30)",
      "        os._exit(0)",
      "    children += 1",
      "print('children', children)",
    ].join("\n");
    const result = await call(box, "python", { code });
    const children = Number(/children (\d+)/.exec(result.output)?.[1]);
    // The limit counts every process in the sandbox: bwrap's init (pid 1) and python itself.
    assert.equal(children, maxProcesses - 2, result.output);
  });

  it("contains a fork bomb", async () => {
    const marker = `bomb-marker-${process.pid}`;
    const box = await toolbox({ limits: { maxProcesses: 20, wallSeconds: 3 } });
    const result = await call(box, "bash", { cmd: `bomb() { bomb | bomb & }; bomb; sleep 2 # ${marker}` });
    assert.ok(result.limitHit === "processes" || result.limitHit === "wall", JSON.stringify(result));
    assert.deepEqual(processesWith(marker), []);
    const after = await call(box, "bash", { cmd: "echo alive" });
    assert.equal(after.output, "alive\n");
  });
});

describeNeeding(needsBubblewrap(), "toolbox: errors are observations", () => {
  it("returns bad JSON, schema violations, unknown tools and failing commands as observations", async () => {
    const box = await toolbox({ tools: ["bash", "submit_answer"] });
    const badJson = await call(box, "bash", "{cmd: ls");
    assert.match(badJson.error ?? "", /arguments of bash are not valid JSON/);
    const missing = await call(box, "bash", {});
    assert.match(missing.error ?? "", /bad arguments for bash: cmd:/);
    const extra = await call(box, "bash", { cmd: "ls", shell: "zsh" });
    assert.match(extra.error ?? "", /shell/);
    const unknown = await call(box, "python", { code: "print(1)" });
    assert.match(unknown.error ?? "", /unknown tool 'python'; available tools: bash, submit_answer/);
    const failing = await call(box, "bash", { cmd: "echo partial; exit 3" });
    assert.equal(failing.error, "exit status 3");
    assert.match(failing.output, /^partial\n\[exit status 3\]$/);
    const noCommand = await call(box, "bash", { cmd: "no-such-command-here" });
    assert.match(noCommand.output, /not found/);
    assert.equal(noCommand.error, "exit status 127");
    for (const result of [badJson, missing, extra, unknown, failing, noCommand]) {
      assert.ok(result.output.length > 0, "expected result.output.length > 0");
      assert.ok(result.durationMs >= 0, "expected result.durationMs >= 0");
    }
  });

  it("submit_answer and submit_verdict carry their values", async () => {
    const box = await toolbox();
    const answer = await call(box, "submit_answer", { answer: "17" });
    assert.equal(answer.answer, "17");
    const verdict = await call(box, "submit_verdict", { done: false, reason: "units missing" });
    assert.deepEqual(verdict.verdict, { done: false, reason: "units missing" });
    const badVerdict = await call(box, "submit_verdict", { done: "yes", reason: "" });
    assert.match(badVerdict.error ?? "", /done:/);
  });

  it("describes each offered tool with its arguments as JSON Schema", async () => {
    const box = await toolbox({ tools: ["bash", "python", "text_editor", "submit_verdict"] });
    const specs = box.specs();
    assert.deepEqual(
      specs.map((spec) => spec.name),
      ["bash", "python", "text_editor", "submit_verdict"],
    );
    const byName = Object.fromEntries(specs.map((spec) => [spec.name, spec.parameters]));
    assert.deepEqual(byName.bash.required, ["cmd"]);
    assert.deepEqual(byName.submit_verdict.required, ["done", "reason"]);
    assert.deepEqual(byName.text_editor.required, ["command", "path"]);
    assert.equal(byName.bash.additionalProperties, false);
    assert.equal("$schema" in byName.bash, false);
    assert.deepEqual(
      box.specs(["python"]).map((spec) => spec.name),
      ["python"],
    );
    assert.throws(() => box.specs(["web_browser"]), /not in this toolbox/);
  });
});

describe("sandbox: bubblewrap missing or broken", () => {
  it("returns an observation saying how to install it, or why it did not start", async () => {
    const box = await toolbox();
    const missing = await runSandboxed({
      workDir: box.workDir,
      argv: ["true"],
      limits: DEFAULT_SANDBOX_LIMITS,
      bwrapPath: join(box.workDir, "no-bwrap-here"),
    });
    const observation = toolResultOf(missing, DEFAULT_SANDBOX_LIMITS);
    assert.match(observation.error ?? "", /is not installed.*apt-get install bubblewrap/);
    const notExecutable = join(box.workDir, "bwrap-not-executable");
    writeFileSync(notExecutable, "not a program", { mode: 0o644 });
    const broken = await runSandboxed({
      workDir: box.workDir,
      argv: ["true"],
      limits: DEFAULT_SANDBOX_LIMITS,
      bwrapPath: notExecutable,
    });
    const brokenObservation = toolResultOf(broken, DEFAULT_SANDBOX_LIMITS);
    assert.match(brokenObservation.error ?? "", /is not executable.*apt-get install bubblewrap/);
    // Neither is the model's doing: both are infrastructure failures, which error the trial.
    assert.equal(observation.infrastructureError, observation.error);
    assert.equal(brokenObservation.infrastructureError, brokenObservation.error);
  });
});
