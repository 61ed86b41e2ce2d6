/**
 * A fake Google Calendar API v3 on 127.0.0.1 (port 0, closed when the test ends), driven by
 * the discovery document: a request must name a method the document has (path and HTTP
 * method), use only query parameters that method knows, with the right types (unknown ones
 * get 400, as Google answers), and send an `Event` body that fits the schema with the fields
 * `events.insert` requires. Every response the fake builds is checked against the method's
 * response schema (`CalendarList`, `Events`, `Event` and everything they reference): a field
 * the schema lacks is a problem, recorded in `problems` and answered with 500, so a test fails.
 * `Authorization: Bearer <token>` is required; a missing or wrong token gets 401.
 */
import { createServer } from "node:http";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { TestContext } from "node:test";
import { FakeCalendarData, googleError } from "./_fake-google-data.js";
import type { Answer } from "./_fake-google-data.js";
import { loadDiscovery, matchMethod, queryProblems, scalarProblems, valueProblems } from "./_discovery.js";
import type { Discovery, DiscoveryMethod } from "./_discovery.js";

export interface SeenRequest {
  method: string;
  url: string;
  authorization: string | undefined;
  body: string;
}

export interface FakeGoogle {
  /** `http://127.0.0.1:<port>/calendar/v3/` */
  baseUrl: string;
  token: string;
  data: FakeCalendarData;
  requests: SeenRequest[];
  /** Requests the fake refused as Google would (400/404 with the reason). */
  refused: string[];
  /** Violations of the discovery document in what the fake itself produced. */
  problems: string[];
}

const IMPLEMENTED = new Set(["calendar.calendarList.list", "calendar.events.list", "calendar.events.insert"]);
let discovery: Discovery | undefined;

export async function startFakeGoogle(t: TestContext, options: { token?: string } = {}): Promise<FakeGoogle> {
  discovery ??= loadDiscovery();
  const doc = discovery;
  const fake = { token: options.token ?? "ya29.test-token", data: new FakeCalendarData(), requests: [], refused: [], problems: [] } as Omit<FakeGoogle, "baseUrl"> & { baseUrl?: string };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      fake.requests.push({ method: req.method ?? "", url: req.url ?? "", authorization: req.headers.authorization, body });
      const answer = handle(doc, fake as FakeGoogle, req, body);
      send(res, answer);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  t.after(() => new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  }));
  fake.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/${doc.servicePath}`;
  return fake as FakeGoogle;
}

function handle(doc: Discovery, fake: FakeGoogle, req: IncomingMessage, body: string): Answer {
  if (req.headers.authorization !== `Bearer ${fake.token}`) {
    return googleError(401, "authError", "Request had invalid authentication credentials. Expected OAuth 2 access token.");
  }
  const url = new URL(req.url ?? "/", "http://fake");
  const prefix = `/${doc.servicePath}`;
  const match = url.pathname.startsWith(prefix) ? matchMethod(doc, req.method ?? "", url.pathname.slice(prefix.length)) : undefined;
  if (match === undefined) return refuse(fake, googleError(404, "notFound", `no method for ${req.method} ${url.pathname}`));
  const problems = [...queryProblems(doc, match.method, url.searchParams), ...pathProblems(match.method, match.params)];
  let json: Record<string, unknown> | undefined;
  if (match.method.request !== undefined) {
    try {
      json = JSON.parse(body) as Record<string, unknown>;
      problems.push(...valueProblems(doc, match.method.request, json, match.method.request.$ref, match.method.id));
    } catch {
      problems.push("request body is not JSON");
    }
  }
  if (problems.length > 0) return refuse(fake, googleError(400, "badRequest", problems.join("; ")));
  if (!IMPLEMENTED.has(match.method.id)) {
    fake.problems.push(`the client called ${match.method.id}, which the fake does not implement`);
    return googleError(501, "notImplemented", match.method.id);
  }
  const answer = dispatch(fake, match.method.id, match.params, url.searchParams, json ?? {});
  if (answer.status === 200 && match.method.response !== undefined) {
    const wrong = valueProblems(doc, match.method.response, answer.body, match.method.response.$ref);
    if (wrong.length > 0) {
      fake.problems.push(...wrong);
      return googleError(500, "backendError", `the fake's own ${match.method.response.$ref} broke the schema: ${wrong.join("; ")}`);
    }
  }
  return answer;
}

function dispatch(fake: FakeGoogle, id: string, params: Record<string, string>, query: URLSearchParams, body: Record<string, unknown>): Answer {
  if (id === "calendar.calendarList.list") return fake.data.calendarList(query);
  if (id === "calendar.events.list") return fake.data.listEvents(params.calendarId ?? "", query);
  return fake.data.insert(params.calendarId ?? "", body);
}

function pathProblems(method: DiscoveryMethod, params: Record<string, string>): string[] {
  return Object.entries(method.parameters ?? {})
    .filter(([, spec]) => spec.location === "path")
    .flatMap(([name, spec]) => (params[name] === undefined || params[name] === "" ? [`path parameter ${name} missing`] : scalarProblems(spec, params[name] ?? "", name)));
}

function refuse(fake: FakeGoogle, answer: Answer): Answer {
  fake.refused.push(`${answer.status} ${String((answer.body.error as { message?: unknown }).message)}`);
  return answer;
}

function send(res: ServerResponse, answer: Answer): void {
  const text = JSON.stringify(answer.body);
  res.writeHead(answer.status, { "content-type": "application/json; charset=UTF-8", "content-length": Buffer.byteLength(text) });
  res.end(text);
}
