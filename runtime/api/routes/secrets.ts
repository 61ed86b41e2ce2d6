import * as v from "valibot";
import type { Runtime } from "../../runtime.js";
import { MAX_VALUE_BYTES, MIN_REDACTED_LENGTH } from "../../secrets/index.js";
import type { SecretInfo } from "../../secrets/index.js";
import { ApiError } from "../middleware/api-error.js";
import { SECRET_NAME } from "./fields.js";
import { defineRoute, reply } from "./route.js";
import type { ApiRoute } from "./route.js";
import * as S from "../schemas/resources.js";
import { PAGE_QUERY, pageOf } from "./page.js";

const Params = v.strictObject({ name: SECRET_NAME });
const ListQuery = v.strictObject({ ...PAGE_QUERY });

/**
 * Every message is written here: valibot's own say what they received, and what was received
 * may be the secret (`{"value": 12345}`, or the value sent as the whole body).
 */
const SecretValue = v.strictObject(
  {
    value: v.pipe(
      v.string("expected the value as a JSON string"),
      v.minLength(1, "expected a non-empty value"),
      v.maxBytes(MAX_VALUE_BYTES, `expected at most ${MAX_VALUE_BYTES} bytes (UTF-8)`),
      v.check((s) => s.isWellFormed(), "expected well-formed Unicode text (no lone surrogate); base64-encode binary secrets"),
    ),
  },
  "expected an object {\"value\": \"…\"}",
);

/** Secrets: names and times only; a value goes in and never comes out. Admin only. */
export function secretRoutes(runtime: Runtime): ApiRoute[] {
  return [
    defineRoute({
      method: "GET",
      path: "/v1/secrets",
      tag: "secrets",
      summary: "List secrets: names and times, never values",
      roles: ["admin"],
      query: ListQuery,
      responses: { 200: { description: "a page of secrets, by name", schema: S.SecretPage } },
      handler: async (c, { query }) => {
        const all = [...(await runtime.secrets.list())].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
        const page = pageOf(all, (s) => s.name, query);
        return reply(c, S.SecretPage, { secrets: page.items.map(secretView), next_cursor: page.next_cursor });
      },
    }),
    defineRoute({
      method: "GET",
      path: "/v1/secrets/:name",
      tag: "secrets",
      summary: "One secret's name and times (never its value)",
      roles: ["admin"],
      params: Params,
      responses: { 200: { description: "the secret's name and times", schema: S.SecretBody }, 404: { description: "secret_not_found" } },
      handler: async (c, { params }) => reply(c, S.SecretBody, { secret: secretView(await infoOf(runtime, params.name)) }),
    }),
    defineRoute({
      method: "PUT",
      path: "/v1/secrets/:name",
      tag: "secrets",
      summary: "Set a secret (encrypted at rest; redacted from the audit log from now on)",
      description: `The value: text, 1 byte to ${MAX_VALUE_BYTES} bytes. Values shorter than ${MIN_REDACTED_LENGTH} characters are not redacted from logs (redacted: false).`,
      roles: ["admin"],
      params: Params,
      body: SecretValue,
      responses: { 200: { description: "replaced", schema: S.SecretPut }, 201: { description: "created", schema: S.SecretPut } },
      handler: async (c, { params, body }) => {
        const existed = await runtime.secrets.has(params.name);
        await runtime.setSecret(params.name, body.value);
        const redacted = [...body.value].length >= MIN_REDACTED_LENGTH;
        return reply(c, S.SecretPut, { secret: secretView(await infoOf(runtime, params.name)), redacted }, existed ? 200 : 201);
      },
    }),
    defineRoute({
      method: "DELETE",
      path: "/v1/secrets/:name",
      tag: "secrets",
      summary: "Remove a secret",
      roles: ["admin"],
      params: Params,
      responses: { 200: { description: "removed: the name", schema: S.Removed }, 404: { description: "secret_not_found" } },
      handler: async (c, { params }) => {
        if (!(await runtime.removeSecret(params.name))) throw notFound(params.name);
        return reply(c, S.Removed, { removed: params.name });
      },
    }),
  ];
}

async function infoOf(runtime: Runtime, name: string): Promise<SecretInfo> {
  const info = (await runtime.secrets.list()).find((s) => s.name === name);
  if (info === undefined) throw notFound(name);
  return info;
}

function notFound(name: string): ApiError {
  return new ApiError("secret_not_found", `secret ${name}: not found`, { status: 404 });
}

function secretView(s: SecretInfo): v.InferInput<typeof S.SecretSchema> {
  return { name: s.name, created_at: new Date(s.createdAt).toISOString(), updated_at: new Date(s.updatedAt).toISOString() };
}
