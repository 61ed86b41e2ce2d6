/**
 * A fake Gmail API on 127.0.0.1 (port 0) for the GmailApiBackend tests. Every request is
 * routed and checked against the discovery document (unknown path → 404, unknown or ill-typed
 * parameter → 400, like Google), must carry `Authorization: Bearer <token>` (else 401), and
 * every response body is checked against the method's response schema before it is sent: a
 * field the schema does not have is a violation (500 and recorded), so the fake cannot drift
 * from Google's shapes. Tests assert `rejected` and `violations` stay empty.
 */
import { createServer } from "node:http";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { compileSearch } from "../../../../host-proxies/gmail/index.js";
import type { CorpusMessage } from "../_corpus.js";
import { checkParams, checkSchema, loadDiscovery, route } from "./discovery.js";
import type { Discovery, Method } from "./discovery.js";
import { buildMailbox, FAKE_SEARCH_OPERATORS, messageJson } from "./mailbox.js";
import type { FakeMailbox, MessageFormat } from "./mailbox.js";

export interface SeenRequest {
  method: string;
  methodId: string | undefined;
  path: string;
  query: URLSearchParams;
  authorization: string | undefined;
}

export interface FakeGmail {
  /** Base URL for `GmailApiBackend` (`http://127.0.0.1:<port>/`). */
  url: string;
  token: string;
  mailbox: FakeMailbox;
  requests: SeenRequest[];
  /** Requests refused for breaking the discovery document (unknown parameter, bad type…). */
  rejected: string[];
  /** Responses the fake produced that break the discovery document's schemas. */
  violations: string[];
  /** Milliseconds to wait before answering (timeout tests). */
  delayMs: number;
  idOf(label: string, name: string): string;
  close(): Promise<void>;
}

type Reply = { status: number; body: unknown; schema?: string; headers?: Record<string, string> };

const discovery: Discovery = loadDiscovery();

export async function startFakeGmail(corpus: readonly CorpusMessage[], options: { token: string; now: number }): Promise<FakeGmail> {
  const fake: Omit<FakeGmail, "url" | "close"> = {
    token: options.token,
    mailbox: buildMailbox(corpus),
    requests: [],
    rejected: [],
    violations: [],
    delayMs: 0,
    idOf(label, name) {
      const m = this.mailbox.messages.find((x) => x.source.label === label && x.source.name === name);
      if (m === undefined) throw new Error(`fake: no message ${name} under ${label}`);
      return m.id;
    },
  };
  const server = createServer((req, res) => {
    void handle(fake, req, options.now).then(async (reply) => {
      if (fake.delayMs > 0) await new Promise((r) => setTimeout(r, fake.delayMs));
      send(fake, res, reply);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  const close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return Object.assign(fake, { url: `http://127.0.0.1:${port}/`, close });
}

async function handle(fake: Omit<FakeGmail, "url" | "close">, req: IncomingMessage, now: number): Promise<Reply> {
  const url = new URL(req.url ?? "/", "http://127.0.0.1");
  const found = route(discovery, req.method ?? "", url.pathname);
  fake.requests.push({ method: req.method ?? "", methodId: found?.method.id, path: url.pathname, query: url.searchParams, authorization: req.headers.authorization });
  if (found === undefined) {
    fake.rejected.push(`no discovery method for ${req.method} ${url.pathname}`);
    return googleError(404, "NOT_FOUND", "notFound", `Method not found: ${url.pathname}`);
  }
  if (req.headers.authorization !== `Bearer ${fake.token}`) {
    return { ...googleError(401, "UNAUTHENTICATED", "authError", "Request had invalid authentication credentials."), headers: { "www-authenticate": 'Bearer realm="https://accounts.google.com/", error="invalid_token"' } };
  }
  const problems = checkParams(discovery, found.method, url.searchParams);
  if (problems.length > 0) {
    fake.rejected.push(...problems);
    return googleError(400, "INVALID_ARGUMENT", "badRequest", problems.join("; "));
  }
  if (found.pathParams.userId !== "me") return googleError(403, "PERMISSION_DENIED", "forbidden", "Delegation denied");
  return dispatch(fake, found.method, { pathParams: found.pathParams, query: url.searchParams, now });
}

function dispatch(fake: Omit<FakeGmail, "url" | "close">, method: Method, request: { pathParams: Record<string, string>; query: URLSearchParams; now: number }): Reply {
  const { mailbox } = fake;
  const { query } = request;
  const schema = method.response?.$ref;
  switch (method.id) {
    case "gmail.users.labels.list":
      return { status: 200, schema, body: { labels: mailbox.labels.map((l) => ({ ...l, ...(l.type === "user" ? { messageListVisibility: "show", labelListVisibility: "labelShow" } : {}) })) } };
    case "gmail.users.messages.list":
      return listMessages(mailbox, query, request.now, schema);
    case "gmail.users.messages.get": {
      const m = mailbox.messages.find((x) => x.id === request.pathParams.id);
      if (m === undefined) return googleError(404, "NOT_FOUND", "notFound", "Requested entity was not found.");
      return { status: 200, schema, body: messageJson(m, (query.get("format") ?? "full") as MessageFormat, query.getAll("metadataHeaders")) };
    }
    case "gmail.users.threads.get": {
      const messages = mailbox.messages.filter((x) => x.threadId === request.pathParams.id).sort((a, b) => a.internalDate - b.internalDate);
      if (messages.length === 0) return googleError(404, "NOT_FOUND", "notFound", "Requested entity was not found.");
      const format = (query.get("format") ?? "full") as MessageFormat;
      return { status: 200, schema, body: { id: request.pathParams.id, historyId: "4242", messages: messages.map((m) => messageJson(m, format, query.getAll("metadataHeaders"))) } };
    }
    default:
      fake.rejected.push(`fake: ${method.id} is not implemented`);
      return googleError(501, "UNIMPLEMENTED", "notImplemented", `${method.id} is not implemented by the fake`);
  }
}

function listMessages(mailbox: FakeMailbox, query: URLSearchParams, now: number, schema: string | undefined): Reply {
  let matches;
  try {
    matches = compileSearch(query.get("q") ?? "", { now, operators: FAKE_SEARCH_OPERATORS });
  } catch (err) {
    return googleError(400, "INVALID_ARGUMENT", "invalidArgument", `Invalid query: ${(err as Error).message}`);
  }
  const labelIds = query.getAll("labelIds");
  const hidden = query.get("includeSpamTrash") === "true" ? [] : ["SPAM", "TRASH"];
  const all = mailbox.messages
    .filter((m) => labelIds.every((id) => m.labelIds.includes(id)) && !m.labelIds.some((id) => hidden.includes(id)) && matches(m.doc))
    .sort((a, b) => b.internalDate - a.internalDate);
  const max = Math.min(Number(query.get("maxResults") ?? "100"), 500);
  const offset = Number(/^p(\d+)$/.exec(query.get("pageToken") ?? "")?.[1] ?? "0");
  const page = all.slice(offset, offset + max);
  const body: Record<string, unknown> = { resultSizeEstimate: all.length };
  if (page.length > 0) body.messages = page.map((m) => ({ id: m.id, threadId: m.threadId }));
  if (offset + max < all.length) body.nextPageToken = `p${offset + max}`;
  return { status: 200, schema, body };
}

function googleError(code: number, status: string, reason: string, message: string): Reply {
  return { status: code, body: { error: { code, message, errors: [{ message, domain: "global", reason }], status } } };
}

function send(fake: Pick<FakeGmail, "violations">, res: ServerResponse, reply: Reply): void {
  let { status, body } = reply;
  if (reply.schema !== undefined) {
    const problems = checkSchema(discovery, reply.schema, body);
    if (problems.length > 0) {
      fake.violations.push(...problems);
      ({ status, body } = googleError(500, "INTERNAL", "backendError", `fake response breaks ${reply.schema}: ${problems.join("; ")}`));
    }
  }
  res.writeHead(status, { "content-type": "application/json; charset=UTF-8", ...reply.headers });
  res.end(JSON.stringify(body));
}
