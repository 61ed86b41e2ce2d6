/**
 * `clawhive/client` is for a program that only talks to a server: importing it loads neither the
 * store's native driver (libsql, @libsql/client), the API's app (hono) nor the runtime. The
 * in-process client, which needs them, is `clawhive`'s. Imported by name from a project whose
 * node_modules/clawhive is this checkout, as an install lays it out.
 */
import assert from "node:assert/strict";
import { mkdir, symlink, writeFile } from "node:fs/promises";
import { join, sep } from "node:path";
import { test } from "node:test";
import { PROJECT_ROOT } from "../../runtime/plugins/locations.js";
import { modulesLoadedBy } from "../helpers/loaded-modules.js";
import { tempDir } from "../helpers/runtime.js";

const HEAVY: Array<[what: string, marker: string]> = [
  ["the store's native driver", `${sep}node_modules${sep}libsql${sep}`],
  ["the store's client", `${sep}node_modules${sep}@libsql${sep}`],
  ["the API's app framework", `${sep}node_modules${sep}hono${sep}`],
  ["the API's app", `${sep}dist${sep}runtime${sep}api${sep}`],
  ["the runtime", `${sep}dist${sep}runtime${sep}runtime${sep}`],
];

async function consumer(): Promise<string> {
  const dir = await tempDir("clawhive-light-");
  await mkdir(join(dir, "node_modules"), { recursive: true });
  await symlink(PROJECT_ROOT, join(dir, "node_modules", "clawhive"), "dir");
  await writeFile(join(dir, "package.json"), JSON.stringify({ name: "consumer", type: "module", private: true }));
  return dir;
}

test("importing clawhive/client loads no store driver, no API app and no runtime", async () => {
  const loaded = await modulesLoadedBy("clawhive/client", await consumer());
  assert.ok(loaded.some((path) => path.endsWith(join("dist", "runtime", "client", "http.js"))), `the check sees the client itself:\n${loaded.join("\n")}`);
  for (const [what, marker] of HEAVY) {
    assert.deepEqual(loaded.filter((path) => path.includes(marker)), [], `clawhive/client loads ${what}`);
  }
});

test("control: importing clawhive loads each of them, so the check above can see them", async () => {
  const loaded = await modulesLoadedBy("clawhive", await consumer());
  for (const [what, marker] of HEAVY) {
    assert.ok(loaded.some((path) => path.includes(marker)), `clawhive does not load ${what} (${marker}): the marker no longer marks it`);
  }
});

test("the in-process client is clawhive's, beside the Runtime it takes", async () => {
  const dir = await consumer();
  const script = `import { inProcessClient, httpClient } from "clawhive"; import * as client from "clawhive/client"; console.log(typeof inProcessClient, typeof httpClient, "inProcessClient" in client);`;
  const { execFileSync } = await import("node:child_process");
  const out = execFileSync(process.execPath, ["--input-type=module", "-e", script], { cwd: dir, encoding: "utf8" });
  assert.equal(out.trim(), "function function false");
});
