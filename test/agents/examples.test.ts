/** The shipped examples in `capabilities/` load, with the dangers they acknowledge. */
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { test } from "node:test";
import { parse } from "yaml";
import { loadAgentManifests } from "../../runtime/agents/index.js";
import { assertManifestError, CAPABILITIES_DIR, dataDir, parseObject } from "./_fixtures.js";

test("examples: default, assistant, coder and researcher load against a data dir with a workspace", async (t) => {
  const d = await dataDir(t);
  const agents = await loadAgentManifests(CAPABILITIES_DIR, { baseDir: d.base });
  assert.deepEqual([...agents.keys()], ["assistant", "coder", "default", "researcher"]);
  const byName = (n: string) => agents.get(n)?.manifest;
  assert.equal(byName("default")?.grants["fs.write"]?.mounts[0]?.host, d.workspace);
  assert.deepEqual(byName("assistant")?.grants["gmail.read"]?.labels, ["INBOX"]);
  assert.equal(byName("assistant")?.grants["http.fetch"], undefined, "the assistant has no network");
  assert.deepEqual(agents.get("coder")?.warnings.map((w) => w.id), ["fs-write-shell-same-mount", "shell-program-runner"]);
  assert.deepEqual(agents.get("default")?.warnings, []);
  assert.deepEqual(byName("researcher")?.grants["http.fetch"]?.credentials.map((c) => c.host), ["api.github.com", "api.search.brave.com"]);
  assert.equal(byName("researcher")?.todo, "run");
});

test("examples: coder without its acknowledgement fails; control: with it, it parses", async (t) => {
  const d = await dataDir(t);
  const coder = parse(await readFile(`${CAPABILITIES_DIR}coder.yaml`, "utf8")) as Record<string, unknown>;
  assert.equal(parseObject(coder, d.base).manifest.name, "coder");
  const { acknowledge: _dropped, ...unacknowledged } = coder;
  assertManifestError(() => parseObject(unacknowledged, d.base), "grants.shell.exec.mounts[0]", /^dangerous combination fs-write-shell-same-mount/);
});
