/**
 * The shipped binary withholds a read whose audit records could not be made durable
 * (docs/security.md, "Durability at the boundary where data leaves"): `clawhive call` exits
 * non-zero without the content, and `clawhive mcp serve` answers `tools/call` with an error
 * result without it; the session goes on. The failure is a real one: a trigger in the store
 * file refuses the read's records, as a full disk would. Controls: the same calls, healthy.
 */
import assert from "node:assert/strict";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { DEFAULT_STORE_FILE } from "../../runtime/runs/agent-setup.js";
import { openStore, type Store } from "../../runtime/store/index.js";
import { hostOutcome, refuseAuditRecords } from "../helpers/audit-faults.js";
import { BIN, cliPlace, clawhiveIn, type CliPlace } from "./fixtures.js";

const MARK = "QUINCE-8817-private";
const READ = JSON.stringify({ path: "/workspace/note.md" });

async function placeWithNote(): Promise<CliPlace> {
  const place = await cliPlace("clawhive-durable-");
  await mkdir(join(place.data, "workspace"), { recursive: true });
  await writeFile(join(place.data, "workspace", "note.md"), `note: ${MARK}\n`);
  return place;
}

const openPlaceStore = (place: CliPlace): Promise<Store> => openStore({ url: `file:${join(place.data, DEFAULT_STORE_FILE)}` });

test("clawhive call: a read whose records cannot be committed exits 1 without the content; control: the content, exit 0", { timeout: 300_000 }, async () => {
  const place = await placeWithNote();
  const call = () => clawhiveIn(place, "call", "files.read_file", READ, "--agent", "writer", "--agents", place.agents);
  const first = call();
  assert.equal(first.code, 0, first.stderr);
  assert.match(first.stdout, new RegExp(MARK));
  const store = await openPlaceStore(place);
  try {
    const lift = await refuseAuditRecords(store, hostOutcome("fs", "read"));
    const refused = call();
    await lift();
    assert.equal(refused.code, 1, `${refused.stdout}\n${refused.stderr}`);
    assert.doesNotMatch(refused.stdout + refused.stderr, new RegExp(MARK));
    assert.match(refused.stderr, /audit/);
    const healthy = call();
    assert.equal(healthy.code, 0, healthy.stderr);
    assert.match(healthy.stdout, new RegExp(MARK));
  } finally {
    await store.close();
  }
});

test("clawhive mcp serve: tools/call of a read whose records cannot be committed is an error result without the content; control: the next call returns it", { timeout: 300_000 }, async () => {
  const place = await placeWithNote();
  // The store exists (and the plugins are installed) before the session opens.
  const made = clawhiveIn(place, "call", "files.read_file", READ, "--agent", "writer", "--agents", place.agents);
  assert.equal(made.code, 0, made.stderr);
  const env = Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined && !e[0].startsWith("CLAWHIVE_")));
  const client = new Client({ name: "durable-test", version: "1.0.0" });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [BIN, "mcp", "serve", "--agent", "writer", "--agents", place.agents, "--data-dir", place.data], env, stderr: "ignore" }));
  const store = await openPlaceStore(place);
  try {
    const call = () => client.callTool({ name: "files__read_file", arguments: { path: "/workspace/note.md" } });
    const lift = await refuseAuditRecords(store, hostOutcome("fs", "read"));
    const refused = await call();
    await lift();
    assert.equal(refused.isError, true, JSON.stringify(refused));
    assert.equal((refused.structuredContent as { error: { kind: string } }).error.kind, "audit-failed");
    assert.doesNotMatch(JSON.stringify(refused), new RegExp(MARK));
    const healthy = await call();
    assert.equal(healthy.isError, undefined, JSON.stringify(healthy));
    assert.match(JSON.stringify(healthy.content), new RegExp(MARK));
  } finally {
    await client.close();
    await store.close();
  }
});
