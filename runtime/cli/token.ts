import { mkdir } from "node:fs/promises";
import { InvalidInputError } from "../errors.js";
import { checkTokenId, isRole, openTokenStore, ROLES } from "../api/auth/index.js";
import type { TokenInfo, TokenStore } from "../api/auth/index.js";
import { openStore, systemClock } from "../store/index.js";
import { parseCommandArgs } from "./args.js";
import { flagText, inert, jsonOut } from "./render.js";
import { resolveDataDir, resolveStoreUrl, STORE_FLAGS, STORE_FLAGS_HELP, withExistingStore } from "./store-path.js";

export const tokenHelp = `clawhive token — bearer tokens for the HTTP API

  clawhive token create --role admin|approver|client [--name NAME]
  clawhive token list [--json]
  clawhive token revoke ID

  create: prints the new token on stdout, once: the store keeps only its SHA-256, so it cannot
          be shown again. E.g. clawhive token create --role client --name ci > ci.token
  list:   ids, roles, names and times, never the token (--json for JSON).
  revoke: refuses the token from now on, on every node sharing the store.

  Roles: admin may do everything (plugins, agents, secrets, and what the others do);
  approver decides approvals; client starts runs and reads only its own runs.
  The first 'clawhive serve' on a store without tokens creates and prints an admin token;
  this command is how to make more, or a new admin token if that one is lost.

  --role R          admin, approver or client
  --name NAME       who holds it, for 'token list' (default: the role); letters, digits,
                    space and . _ @ : ( ) -, at most 64
  ID                tok_ and 16 hex digits, as 'token list' shows

${STORE_FLAGS_HELP}

  Exit codes: 0 ok; 1 no such token (or no store); 2 bad usage.`;

const usage = "usage: clawhive token create --role admin|approver|client [--name NAME] | list | revoke ID";

export async function tokenCommand(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === "create") return create(rest);
  if (sub === "list") return list(rest);
  if (sub === "revoke") return revoke(rest);
  throw new InvalidInputError(sub === undefined ? usage : `unknown token command '${sub}'; ${usage}`);
}

async function create(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, { ...STORE_FLAGS, role: { type: "string" }, name: { type: "string" } });
  if (positionals.length > 0) throw new InvalidInputError(`token create takes no arguments; ${usage}`);
  const role = flagText(values, "role");
  if (role === undefined) throw new InvalidInputError(`token create needs --role ${ROLES.join("|")}`, { field: "role" });
  if (!isRole(role)) throw new InvalidInputError(`--role ${role}: expected one of ${ROLES.join(", ")}`, { field: "role" });
  const name = flagText(values, "name");
  // A fresh data dir is fine: tokens made before the first 'serve' mean it creates no admin token.
  await mkdir(resolveDataDir(values), { recursive: true, mode: 0o700 });
  const authToken = nonEmptyEnv("CLAWHIVE_STORE_AUTH_TOKEN");
  const store = await openStore({ url: resolveStoreUrl(values), ...(authToken === undefined ? {} : { authToken }) });
  try {
    const tokens = await openTokenStore(store, { clock: systemClock });
    const created = await tokens.create(role, name === undefined ? {} : { name });
    console.log(created.token);
    console.error(
      `created ${created.info.role} token ${created.info.id} (${inert(created.info.name, { newlines: false })}); ` +
        "this is the only time it is shown: keep it somewhere safe",
    );
    return 0;
  } finally {
    await store.close();
  }
}

async function list(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, { ...STORE_FLAGS, json: { type: "boolean" } });
  if (positionals.length > 0) throw new InvalidInputError(`token list takes no arguments; ${usage}`);
  return withTokens(values, async (tokens) => {
    const found = await tokens.list();
    if (values.json) {
      console.log(jsonOut(found));
      return 0;
    }
    if (found.length === 0) {
      console.error("no tokens");
      return 0;
    }
    for (const line of table(found)) console.log(line);
    return 0;
  });
}

async function revoke(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, { ...STORE_FLAGS });
  const [id, ...extra] = positionals;
  if (id === undefined || id === "" || extra.length > 0) throw new InvalidInputError("usage: clawhive token revoke ID");
  checkTokenId(id);
  return withTokens(values, async (tokens) => {
    const before = await tokens.get(id);
    if (before === undefined) {
      console.error(`clawhive: token ${id}: not found; 'clawhive token list' shows the ids`);
      return 1;
    }
    if (before.revokedAt !== null) {
      console.log(`token ${id} was already revoked at ${iso(before.revokedAt)}`);
      return 0;
    }
    await tokens.revoke(id);
    console.log(`revoked ${before.role} token ${id}`);
    return 0;
  });
}

/** Opens the existing store; no store means no tokens to list or revoke (exit 1). */
function withTokens(values: Readonly<Record<string, unknown>>, body: (tokens: TokenStore) => Promise<number>): Promise<number> {
  return withExistingStore(values, async (store) => body(await openTokenStore(store, { clock: systemClock })));
}

function table(tokens: readonly TokenInfo[]): string[] {
  const rows = tokens.map((t) => [
    t.id,
    t.role,
    t.revokedAt === null ? "active" : `revoked ${iso(t.revokedAt)}`,
    `created ${iso(t.createdAt)}`,
    t.lastUsedAt === null ? "never used" : `last used ${iso(t.lastUsedAt)}`,
    inert(t.name, { newlines: false }),
  ]);
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  return rows.map((row) => row.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column]!))).join("  "));
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

function nonEmptyEnv(name: string): string | undefined {
  const value = process.env[name];
  return value === undefined || value === "" ? undefined : value;
}
