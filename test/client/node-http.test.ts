/**
 * What carries a client's requests to a server (runtime/client/node-http.ts), against a plain
 * HTTP server on 127.0.0.1 that answers as told: bodies both ways, an event stream arriving in
 * pieces, aborts before and during an answer, an unreachable server, a redirect that must not
 * be followed (nor the token taken along), and the API's error answers.
 */
import assert from "node:assert/strict";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { ClawhiveError } from "../../runtime/errors.js";
import { nodeFetch } from "../../runtime/client/node-http.js";
import { ApiClient, ServerError } from "../../runtime/client/transport.js";

type Handler = (req: IncomingMessage, body: Buffer, res: ServerResponse) => void;
let server: Server;
let base: string;
let handler: Handler = (_req, _body, res) => res.end();
const seen: Array<{ url: string; authorization: string | undefined }> = [];

before(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      seen.push({ url: req.url ?? "", authorization: req.headers.authorization });
      handler(req, Buffer.concat(chunks), res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => {
  server.closeAllConnections();
  server.close();
});

const client = () => new ApiClient({ url: base, token: "chv_tok_test" });

describe("the client's HTTP carrier", () => {
  it("sends a JSON body with its length and the bearer token, and reads the JSON answer", async () => {
    handler = (req, body, res) => {
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify({ method: req.method, type: req.headers["content-type"], length: req.headers["content-length"], got: JSON.parse(body.toString("utf8")) }));
    };
    const answer = await client().request<Record<string, unknown>>("POST", "/v1/echo", { json: { name: "ünïcode ✓", n: 1 } });
    assert.deepEqual(answer, { method: "POST", type: "application/json", length: String(Buffer.byteLength(JSON.stringify({ name: "ünïcode ✓", n: 1 }))), got: { name: "ünïcode ✓", n: 1 } });
    assert.equal(seen.at(-1)?.authorization, "Bearer chv_tok_test");
  });

  it("sends raw bytes as they are, a view into a larger buffer included", async () => {
    handler = (req, body, res) => res.end(JSON.stringify({ type: req.headers["content-type"], hex: body.toString("hex") }));
    const whole = new Uint8Array([9, 9, 0, 1, 2, 255, 9]);
    const answer = await client().request<{ type: string; hex: string }>("PUT", "/v1/raw", { raw: { bytes: whole.subarray(2, 6), mediaType: "application/gzip" } });
    assert.deepEqual(answer, { type: "application/gzip", hex: "000102ff" });
  });

  it("an error answer is the API's code, status and field; a body that is not the API's shape still says the status", async () => {
    handler = (_req, _body, res) => {
      res.statusCode = 400;
      res.end(JSON.stringify({ error: { code: "invalid_input", message: "name: too long", field: "name" } }));
    };
    await assert.rejects(client().get("/v1/x"), (error: unknown) => error instanceof ServerError && error.code === "invalid_input" && error.status === 400 && error.field === "name");
    handler = (_req, _body, res) => {
      res.statusCode = 502;
      res.end("<html>bad gateway</html>");
    };
    await assert.rejects(client().get("/v1/x"), (error: unknown) => error instanceof ServerError && error.code === "http_502" && error.status === 502);
  });

  it("a redirect is not followed and the token goes nowhere else", async () => {
    const before = seen.length;
    handler = (_req, _body, res) => {
      res.statusCode = 302;
      res.setHeader("location", `${base}/elsewhere`);
      res.end();
    };
    await assert.rejects(client().get("/v1/x"), (error: unknown) => error instanceof ServerError && error.status === 302);
    assert.deepEqual(seen.slice(before).map((s) => s.url), ["/v1/x"]);
  });

  it("an event stream is read as it arrives, a CRLF split across pieces included", async () => {
    handler = (_req, _body, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write("id: 1\r");
      setTimeout(() => res.write("\nevent: run.started\r\ndata: {\"a\":1}\r\n\r\n"), 20);
      setTimeout(() => res.write("id: 2\nevent: run.ended\ndata: {\"b\":2}\n\n"), 40);
      setTimeout(() => res.end("event: end\ndata: {}\n\n"), 60);
    };
    const events = [];
    for await (const event of client().events("r1")) events.push(event);
    assert.deepEqual(events, [
      { seq: 1, type: "run.started", data: { a: 1 } },
      { seq: 2, type: "run.ended", data: { b: 2 } },
    ]);
  });

  it("an abort ends a request before its answer and a body being read; the control reads it whole", async () => {
    handler = () => undefined; // never answers
    const early = new AbortController();
    setTimeout(() => early.abort(), 30);
    await assert.rejects(nodeFetch(new URL(`${base}/hang`), { method: "GET", headers: {}, signal: early.signal }), (error: Error) => error.name === "AbortError");

    handler = (_req, _body, res) => {
      res.writeHead(200);
      res.write("part one;");
    };
    const late = new AbortController();
    const answer = await nodeFetch(new URL(`${base}/slow`), { method: "GET", headers: {}, signal: late.signal });
    assert.equal(answer.status, 200);
    setTimeout(() => late.abort(), 30);
    await assert.rejects(answer.text(), (error: Error) => error.name === "AbortError");

    handler = (_req, _body, res) => {
      res.writeHead(200);
      res.write("part one;");
      setTimeout(() => res.end("part two"), 20);
    };
    const whole = await nodeFetch(new URL(`${base}/slow`), { method: "GET", headers: {} });
    assert.equal(await whole.text(), "part one;part two");
    await assert.rejects(whole.text(), /already read/);
  });

  it("an aborted signal starts no request", async () => {
    const before = seen.length;
    await assert.rejects(nodeFetch(new URL(`${base}/x`), { method: "GET", headers: {}, signal: AbortSignal.abort() }), (error: Error) => error.name === "AbortError");
    assert.equal(seen.length, before);
  });

  it("a server that is not there is server_unreachable, naming why", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const gone = new ApiClient({ url: `http://127.0.0.1:${port}`, token: "t" });
    await assert.rejects(gone.get("/v1/x"), (error: unknown) => error instanceof ClawhiveError && error.code === "server_unreachable" && error.status === 503 && /ECONNREFUSED/.test(error.message));
  });

  it("refuses a scheme other than http and https", async () => {
    await assert.rejects(nodeFetch(new URL("file:///etc/passwd"), { method: "GET", headers: {} }), /unsupported protocol file:/);
  });
});
