/**
 * The shipped `clawhive serve`, stopped by SIGTERM while a `POST /v1/runs?wait=true` waits on its
 * run (a model call to a server that never answers): the client gets a whole HTTP answer —
 * 503 `server_stopping`, `Location` and `details.run_id` naming the run, which stays in the
 * store — and the process exits. Control: a wait=true run that ends before the stop answers 201.
 */
import assert from "node:assert/strict";
import { writeFile, rm } from "node:fs/promises";
import { createServer, type Server, type Socket } from "node:net";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { serve, type Served } from "./client-fixtures.js";
import { cliPlace, clawhiveAsync, clawhiveIn, type CliPlace } from "./fixtures.js";

const WAITER = (port: number) => `name: waiter
description: Its model never answers.
model: { provider: anthropic, id: m, base_url: "http://127.0.0.1:${port}", api_key_secret: llm_key }
system_prompt: Wait.
plugins:
  - { name: files, version: "*" }
grants:
  fs.read:
    mounts: [{ guest: /workspace, host: ./workspace }]
  log: {}
`;

describe("clawhive serve stopped while a wait=true run waits", { timeout: 300_000 }, () => {
  let place: CliPlace;
  let silent: Server;
  const sockets: Socket[] = [];
  let asked: Promise<void>;
  let served: Served;
  before(async () => {
    place = await cliPlace("clawhive-serve-stop-");
    // Accepts the model call and never answers it.
    let connected: () => void = () => undefined;
    asked = new Promise((resolve) => (connected = resolve));
    silent = createServer((socket) => {
      sockets.push(socket);
      connected();
    });
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const port = (silent.address() as { port: number }).port;
    await writeFile(join(place.agents, "waiter.yaml"), WAITER(port));
    assert.equal((await clawhiveAsync(place, ["secret", "set", "llm_key"], "test-key-0123456789")).code, 0);
    served = await serve(place);
  });
  after(async () => {
    await served?.stop();
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => silent.close(resolve));
    await rm(place.root, { recursive: true, force: true });
  });

  const post = (body: unknown) =>
    fetch(`${served.url}/v1/runs?wait=true`, {
      method: "POST",
      headers: { authorization: `Bearer ${served.token}`, "content-type": "application/json" },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(120_000),
    });

  it("control: a wait=true run that ends answers 201 with the ended run", async () => {
    const response = await post({ agent: "writer", tool_calls: [{ name: "files.list_dir", input: { path: "/workspace" } }] });
    const body = (await response.json()) as { run: { id: string; status: string } };
    assert.equal(response.status, 201, JSON.stringify(body));
    assert.equal(body.run.status, "ended");
  });

  it("SIGTERM answers the waiting request 503 server_stopping naming the run, then the server exits", async () => {
    const pending = post({ agent: "waiter", task: "wait for ever" });
    await asked;
    const exited = new Promise<number | null>((resolve) => served.child.once("exit", (code) => resolve(code)));
    served.child.kill("SIGTERM");
    const response = await pending;
    const body = (await response.json()) as { error: { code: string; message: string; details: { run_id: string; location: string } } };
    assert.equal(response.status, 503, JSON.stringify(body));
    assert.equal(body.error.code, "server_stopping");
    const id = body.error.details.run_id;
    assert.match(id, /^run_/);
    assert.equal(response.headers.get("location"), `/v1/runs/${id}`);
    assert.equal(body.error.details.location, `/v1/runs/${id}`);
    assert.match(response.headers.get("retry-after") ?? "", /^[1-9]\d*$/);
    assert.match(body.error.message, /stopping .*continues on another node or when this one restarts/);
    await exited;
    // The run was left in the store, not lost: the next node (here, the CLI on the store) reads it.
    const shown = clawhiveIn(place, "runs", "show", id);
    assert.equal(shown.code, 0, shown.stderr);
    assert.match(shown.stdout, new RegExp(id));
  });
});
