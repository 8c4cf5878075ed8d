/**
 * The viewer's Host check holds whatever address it is bound to: a request carrying a foreign
 * Host (a DNS name rebound to the viewer's address) gets 421, the bound name and the loopback
 * names are served; a wildcard bind also allows the machine's name and addresses.
 */
import assert from "node:assert/strict";
import http from "node:http";
import { describe, it } from "node:test";
import { allowedHostNames } from "../../src/viewer/security.js";
import { startViewer } from "../../src/viewer/serve.js";
import { writeLargeStudy } from "./fixture.js";

function statusWithHost(url: string, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = http.get(url, { headers: { host } }, (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    });
    request.on("error", reject);
  });
}

describe("viewer Host check", () => {
  for (const bind of ["localhost", "0.0.0.0", "127.0.0.1"]) {
    it(`bound to ${bind}: a foreign Host gets 421, the bound and loopback names 200`, async () => {
      const { dir } = await writeLargeStudy(3);
      const viewer = await startViewer(dir, { host: bind });
      try {
        const port = new URL(viewer.url).port;
        const local = `http://127.0.0.1:${port}/`;
        assert.equal(await statusWithHost(local, `evil.com:${port}`), 421, "foreign name");
        assert.equal(await statusWithHost(local, "evil.com"), 421, "foreign name without a port");
        assert.equal(await statusWithHost(local, `${bind}:${port}`), 200, "the bound name");
        assert.equal(await statusWithHost(local, `127.0.0.1:${port}`), 200, "loopback");
        assert.equal(await statusWithHost(local, `localhost:${Number(port) + 1}`), 421, "another port");
      } finally {
        await viewer.close();
      }
    });
  }

  it("allows the machine's names only for a wildcard bind", () => {
    const machine = { hostname: "Lab-Box", addresses: ["10.1.2.3", "fe80::1"] };
    assert.deepEqual(allowedHostNames("0.0.0.0", machine), [
      "127.0.0.1",
      "localhost",
      "[::1]",
      "0.0.0.0",
      "lab-box",
      "10.1.2.3",
      "[fe80::1]",
    ]);
    assert.deepEqual(allowedHostNames("viewer.lab.example", machine), [
      "127.0.0.1",
      "localhost",
      "[::1]",
      "viewer.lab.example",
    ]);
    assert.deepEqual(allowedHostNames("::1", machine), ["127.0.0.1", "localhost", "[::1]"]);
  });
});
