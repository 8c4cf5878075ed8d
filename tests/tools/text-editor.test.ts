import assert from "node:assert/strict";
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import type { Toolbox } from "../../src/contracts/tool.js";
import { createToolbox } from "../../src/tools/toolbox.js";
import { after, before, describeNeeding, it, needsBubblewrap } from "../helpers/prerequisites.js";

let box: Toolbox;
before(async () => {
  box = await createToolbox({ tools: ["text_editor", "bash"] });
});
after(() => box.dispose());

let callNumber = 0;
function edit(args: Record<string, unknown>) {
  callNumber += 1;
  return box.invoke({ id: `edit-${callNumber}`, name: "text_editor", arguments: JSON.stringify(args) });
}
function bash(cmd: string) {
  callNumber += 1;
  return box.invoke({ id: `bash-${callNumber}`, name: "bash", arguments: JSON.stringify({ cmd }) });
}
const onHost = (name: string) => readFileSync(join(box.workDir, name), "utf8");

describeNeeding(needsBubblewrap(), "text_editor", () => {
  const lines = ["alpha", "beta", "gamma", "delta"];

  it("creates a file the sandbox then sees and can change", async () => {
    const created = await edit({ command: "create", path: "/workspace/notes/list.txt", file_text: lines.join("\n") });
    assert.equal(created.error, undefined, created.output);
    assert.equal(onHost("notes/list.txt"), lines.join("\n"));
    const appended = await bash("echo epsilon >> notes/list.txt && wc -l < notes/list.txt");
    assert.equal(appended.error, undefined, appended.output);
    assert.equal(appended.output.trim(), String(lines.length));
    await edit({ command: "create", path: "notes/list.txt", file_text: lines.join("\n") });
  });

  it("views a file with line numbers, a range of it, and a directory", async () => {
    const whole = await edit({ command: "view", path: "notes/list.txt" });
    assert.deepEqual(
      whole.output.split("\n"),
      lines.map((line, i) => `${String(i + 1).padStart(6)}\t${line}`),
    );
    const range = await edit({ command: "view", path: "notes/list.txt", view_range: [2, 3] });
    assert.deepEqual(
      range.output.split("\n").map((line) => line.split("\t")[1]),
      lines.slice(1, 3),
    );
    const toEnd = await edit({ command: "view", path: "notes/list.txt", view_range: [3, -1] });
    assert.equal(toEnd.output.split("\n").length, lines.length - 2);
    const outside = await edit({ command: "view", path: "notes/list.txt", view_range: [9, 12] });
    assert.match(outside.error ?? "", /outside the file's 4 lines/);
    const dir = await edit({ command: "view", path: "/workspace" });
    assert.deepEqual(dir.output.split("\n"), ["/workspace/notes/", "/workspace/notes/list.txt"]);
  });

  it("replaces a string that occurs exactly once, and refuses otherwise", async () => {
    const replaced = await edit({ command: "str_replace", path: "notes/list.txt", old_str: "beta", new_str: "BETA" });
    assert.equal(replaced.error, undefined, replaced.output);
    assert.equal(onHost("notes/list.txt"), lines.join("\n").replace("beta", "BETA"));
    const absent = await edit({ command: "str_replace", path: "notes/list.txt", old_str: "omega", new_str: "x" });
    assert.match(absent.error ?? "", /occurs 0 times/);
    const twice = await edit({ command: "str_replace", path: "notes/list.txt", old_str: "a\n", new_str: "x" });
    assert.match(twice.error ?? "", /occurs [2-9] times/);
  });

  it("inserts after a line", async () => {
    const before = onHost("notes/list.txt").split("\n");
    const inserted = await edit({ command: "insert", path: "notes/list.txt", insert_line: 1, new_str: "one\ntwo" });
    assert.equal(inserted.error, undefined, inserted.output);
    assert.deepEqual(onHost("notes/list.txt").split("\n"), [before[0], "one", "two", ...before.slice(1)]);
    const top = await edit({ command: "insert", path: "notes/list.txt", insert_line: 0, new_str: "first" });
    assert.equal(top.error, undefined);
    assert.equal(onHost("notes/list.txt").split("\n")[0], "first");
    const past = await edit({ command: "insert", path: "notes/list.txt", insert_line: 99, new_str: "x" });
    assert.match(past.error ?? "", /past the file's/);
  });

  it("refuses paths outside the work dir, directly or through a link the sandbox made", async () => {
    for (const path of ["/etc/passwd", "../outside.txt", "/workspace/../etc/hosts", "/tmp/x"]) {
      const result = await edit({ command: "view", path });
      assert.match(result.error ?? "", /outside \/workspace/, path);
    }
    const created = await edit({ command: "create", path: "/etc/parallax-editor-probe", file_text: "x" });
    assert.match(created.error ?? "", /outside \/workspace/);
    await bash("ln -s /etc/passwd leak.txt && ln -s /etc leakdir && ln -s /etc/parallax-dangling dangling.txt");
    for (const path of ["leak.txt", "leakdir/hostname", "dangling.txt"]) {
      const view = await edit({ command: "view", path });
      assert.match(view.error ?? "", /leads outside \/workspace/, path);
    }
    const throughDangling = await edit({ command: "create", path: "dangling.txt", file_text: "x" });
    assert.match(throughDangling.error ?? "", /leads outside/);
    assert.throws(() => statSync("/etc/parallax-dangling"));
  });

  it("reports missing arguments and missing files as observations", async () => {
    const noText = await edit({ command: "create", path: "a.txt" });
    assert.match(noText.error ?? "", /create needs file_text/);
    const missing = await edit({ command: "view", path: "nothing-here.txt" });
    assert.match(missing.error ?? "", /ENOENT/);
    const badCommand = await edit({ command: "undo_edit", path: "a.txt" });
    assert.match(badCommand.error ?? "", /bad arguments for text_editor: command:/);
  });
});
