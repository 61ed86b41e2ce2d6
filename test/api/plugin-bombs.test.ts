/** A decompression bomb uploaded as a plugin package: refused, and the server answers others meanwhile. */
import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { after, before, test } from "node:test";
import { tgz } from "../plugins/install/_tar.js";
import { apiFixture, call, type ApiFixture } from "./routes-fixtures.js";

let f: ApiFixture;

before(async () => {
  f = await apiFixture();
});

after(async () => {
  await f.close();
});

const MIB = 1 << 20;
/** ~100 KB that inflates to 100 MiB of entries: past the 68 MiB a package may unpack to. */
const BOMB = tgz(Array.from({ length: 100 }, (_, i) => ({ path: `junk/${i}.bin`, data: Buffer.alloc(MIB) })));

test("plugin bomb: /health keeps answering while a bomb is unpacked; the bomb is a 422, a small bad package the control", async () => {
  const order: string[] = [];
  let uploading = true;
  const upload = call(f, "POST", "/v1/plugins", { body: BOMB, type: "application/gzip" }).then((answer) => {
    uploading = false;
    order.push("upload");
    return answer;
  });
  let healthy = 0;
  while (uploading) {
    const health = await fetch(`${f.server.base}/health`);
    assert.equal(health.status, 200);
    await health.arrayBuffer();
    if (uploading) order.push("health");
    healthy++;
    // A monitor's pace, not a flood: the upload must progress too.
    await sleep(25);
  }
  const answer = await upload;
  assert.equal(answer.status, 422);
  assert.equal(answer.body.error.code, "package_too_large");
  assert.match(answer.body.error.message, /declares 1048576 bytes/);
  assert.equal(order[0], "health", `answers in order: ${order.join(", ")}`);
  assert.ok(healthy >= 1);
  // Control: a small package missing its wasm is refused for that, by the same route.
  const small = await call(f, "POST", "/v1/plugins", { body: tgz([{ path: "plugin.json", data: "{}" }]), type: "application/gzip" });
  assert.deepEqual([small.status, small.body.error.code], [422, "package_invalid"]);
  assert.deepEqual((await f.runtime.installer.registry.list()).map((p) => p.name).sort(), ["files", "probe"]);
});
