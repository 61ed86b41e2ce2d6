import * as v from "valibot";
import { encodeCursor, type AuditKind, type AuditQuery, type AuditRecord, type AuditStatus } from "../../audit/index.js";
import { InvalidInputError } from "../../errors.js";
import type { Runtime } from "../../runtime.js";
import { mayReadRun, principalOf } from "../auth/index.js";
import { ApiError } from "../middleware/api-error.js";
import { NAME, QUERY_TIME, queryInt, queryList } from "./fields.js";
import { defineRoute, reply } from "./route.js";
import { AuditPage, AuditRecordBody, VerifyBody, type AuditRecordSchema } from "../schemas/audit.js";
import { OPAQUE, snakeKeys } from "./snake.js";
import type * as Schemas from "../schemas/audit.js";
import type { ApiRoute } from "./route.js";

/**
 * The token that started run `runId` (`tok_…`), null for a run started without one (CLI, code),
 * undefined when there is no such run.
 */
export type RunOwnerLookup = (runId: string) => Promise<string | null | undefined>;

export interface AuditRoutesOptions {
  /** Default: the `owner_token` the run records keep. */
  readonly runOwner?: RunOwnerLookup;
}

export const MAX_AUDIT_PAGE = 500;

const STATUSES: readonly AuditStatus[] = ["intent", "ok", "error", "denied"];
const KINDS: readonly AuditKind[] = ["tool_call", "host_call", "model_call", "plugin", "approval_pattern"];

/**
 * The log keeps the ids and tool names its writers gave (a run id from another runtime, a tool
 * named without its plugin): a filter matches them exactly, so it takes what the log may hold,
 * not only what this runtime makes.
 */
const Query = v.strictObject({
  run_id: v.optional(v.pipe(v.string(), v.regex(/^[A-Za-z0-9_-]{1,128}$/, "expected a run id (letters, digits, _ and -)"))),
  trace_id: v.optional(v.pipe(v.string(), v.regex(/^[A-Za-z0-9_-]{1,128}$/, "expected a trace id (letters, digits, _ and -)"))),
  agent: v.optional(NAME),
  tool: v.optional(v.pipe(v.string(), v.regex(/^[a-z][a-z0-9_-]{0,62}(?:\.[a-z][a-z0-9_-]{0,62})?$/, "expected a tool as plugin.tool (files.read_file), or a tool's own name"))),
  kind: v.optional(v.picklist(KINDS, `expected one of ${KINDS.join(", ")}`)),
  status: v.optional(queryList(STATUSES)),
  since: v.optional(QUERY_TIME),
  until: v.optional(QUERY_TIME),
  order: v.optional(v.picklist(["asc", "desc"], "expected asc (chain order) or desc (newest first)")),
  limit: v.optional(queryInt(1, MAX_AUDIT_PAGE)),
  cursor: v.optional(v.pipe(v.string(), v.regex(/^[A-Za-z0-9_-]{1,64}$/, "expected the next_cursor of a previous page, unchanged"))),
});

const SeqParams = v.strictObject({ seq: v.pipe(v.string(), v.regex(/^[1-9]\d{0,14}$/, "expected a record's seq: a positive whole number"), v.transform(Number)) });

const VerifyQuery = v.strictObject({
  expect_head: v.optional(v.pipe(v.string(), v.regex(/^\d{1,15}:[0-9a-f]{64}$/, "expected SEQ:HASH as a previous verify reported it (head.seq:head.hash)"))),
});

/** The audit log: paged, filtered records (clients: their own runs only), and the chain check. */
export function auditRoutes(runtime: Pick<Runtime, "audit" | "records">, options: AuditRoutesOptions = {}): ApiRoute[] {
  const runOwner: RunOwnerLookup = options.runOwner ?? (async (runId) => {
    const record = await runtime.records.get(runId);
    return record === undefined ? undefined : record.ownerToken;
  });
  return [
    defineRoute({
      method: "GET",
      path: "/v1/audit",
      tag: "audit",
      summary: "Audit records, filtered, a page at a time",
      description:
        "Newest first unless order=asc. A page holds at most `limit` records (default 100, at most 500); pass `next_cursor` back as `cursor`, with the same filters and order, for the next; it is null on the last page. A client token must give run_id, a run it started (404 otherwise).",
      roles: ["admin", "client"],
      query: Query,
      responses: { 200: { description: "a page of records", schema: AuditPage }, 404: { description: "a client asked for a run it did not start (or that does not exist)" } },
      handler: async (c, { query }) => {
        const principal = principalOf(c);
        if (principal.role !== "admin") {
          if (query.run_id === undefined) throw new InvalidInputError("query.run_id: a client token reads the audit of one of its runs at a time: give run_id", { field: "query.run_id" });
          const owner = await runOwner(query.run_id);
          // Not 403: a client cannot tell another client's run from one that does not exist.
          if (owner === undefined || !mayReadRun(principal, owner)) throw new ApiError("not_found", `no run ${query.run_id}`, { status: 404 });
        }
        if (query.since !== undefined && query.until !== undefined && query.since >= query.until) {
          throw new InvalidInputError("query.since: must be before until", { field: "query.since" });
        }
        const auditQuery: AuditQuery = {
          order: query.order ?? "desc",
          limit: query.limit ?? 100,
          ...(query.run_id === undefined ? {} : { runId: query.run_id }),
          ...(query.trace_id === undefined ? {} : { traceId: query.trace_id }),
          ...(query.agent === undefined ? {} : { agent: query.agent }),
          ...(query.tool === undefined ? {} : { tool: query.tool }),
          ...(query.kind === undefined ? {} : { kind: query.kind }),
          ...(query.status === undefined ? {} : { status: query.status }),
          ...(query.since === undefined ? {} : { since: query.since }),
          ...(query.until === undefined ? {} : { until: query.until }),
          ...(query.cursor === undefined ? {} : { cursor: query.cursor }),
        };
        const page = await runtime.audit.query(auditQuery).catch((error: unknown) => {
          // The log names its own fields (`audit query cursor: …`); the caller sent query parameters.
          if (error instanceof InvalidInputError && error.field !== undefined) {
            const field = `query.${error.field === "runId" ? "run_id" : error.field === "traceId" ? "trace_id" : error.field}`;
            throw new InvalidInputError(error.message.replace(/^audit query \S+?:?(?= )/, `${field}:`), { field, cause: error });
          }
          throw error;
        });
        return reply(c, AuditPage, { records: page.records.map(auditRecordView), next_cursor: page.nextCursor });
      },
    }),
    defineRoute({
      method: "GET",
      path: "/v1/audit/verify",
      tag: "audit",
      summary: "Walk the hash chain: altered, unlinked, missing records, and intents without outcome",
      description: "`ok` is false when the log was altered outside the runtime. Give expect_head (a head recorded earlier, kept elsewhere) to also detect records cut off the end.",
      roles: ["admin"],
      query: VerifyQuery,
      responses: { 200: { description: "the chain report", schema: VerifyBody } },
      handler: async (c, { query }) => {
        const head = query.expect_head?.split(":");
        const report = await runtime.audit.verify(head === undefined ? {} : { expectedHead: { seq: Number(head[0]), hash: head[1]! } });
        return reply(c, VerifyBody, snakeKeys(report) as v.InferInput<typeof Schemas.VerifyBody>);
      },
    }),
    defineRoute({
      method: "GET",
      path: "/v1/audit/:seq",
      tag: "audit",
      summary: "One audit record by its seq (its place in the chain)",
      description: "A client token reads only a record of a run it started; any other is 404, as a missing one is.",
      roles: ["admin", "client"],
      params: SeqParams,
      responses: { 200: { description: "the record", schema: AuditRecordBody }, 404: { description: "no record of that seq (or not of the client's runs)" } },
      handler: async (c, { params }) => {
        // The page after seq-1 in chain order starts at seq when it exists.
        const page = await runtime.audit.query({ order: "asc", limit: 1, cursor: encodeCursor(params.seq - 1, "asc") });
        const record = page.records[0];
        const missing = () => new ApiError("not_found", `no audit record ${params.seq}`, { status: 404 });
        if (record === undefined || record.seq !== params.seq) throw missing();
        const principal = principalOf(c);
        if (principal.role !== "admin") {
          const owner = record.runId === "" ? undefined : await runOwner(record.runId);
          if (owner === undefined || !mayReadRun(principal, owner)) throw missing();
        }
        return reply(c, AuditRecordBody, { record: auditRecordView(record) });
      },
    }),
  ];
}

/** Capabilities are the grants' own values: their keys are data. */
const AUDIT_OPAQUE: ReadonlySet<string> = new Set([...OPAQUE, "requested_capabilities", "granted_capabilities", "arguments"]);

/** An audit record in the API's names. */
export function auditRecordView(record: AuditRecord): v.InferInput<typeof AuditRecordSchema> {
  return snakeKeys(record, AUDIT_OPAQUE) as v.InferInput<typeof AuditRecordSchema>;
}
