/**
 * `mcp_servers` in an agent manifest: external MCP servers whose tools the agent may call, each
 * under a name that becomes its tools' prefix (`<server>.<tool>`). A server is either a stdio
 * program (`command`, `args`), run confined like `shell.exec`, or a streamable HTTP endpoint
 * (`url`), reached through the http proxy under the agent's `http.fetch` grant. Exactly one of
 * `command` and `url`; checks.ts says which fields go with which.
 */
import * as v from "valibot";
import { strictObject, unique } from "../policy/catalogue/index.js";
import { mountSchema } from "../policy/catalogue/mounts.js";

/** A server name: the tools' prefix, so the plugin-name rule (no dots). */
export const MCP_SERVER_NAME = /^[a-z][a-z0-9-]{0,62}$/;
const SERVER_NAME_MESSAGE = "expected a server name: a lowercase letter, then lowercase letters, digits or '-'";
/** The names the tools get here (MCP tool names are freer; see tool-names.ts). */
const TOOL_REGEX = /^[a-z][a-z0-9_]{0,62}$/;
const SECRET_NAME = /^[a-z][a-z0-9_-]{0,63}$/;
const ENV_NAME = /^[A-Z_][A-Z0-9_]{0,63}$/;
const MAX_ENV = 64;
const MAX_ENV_VALUE = 8192;
/** Variables the sandbox sets itself, or that make a program load another. */
export const RESERVED_ENV = ["PATH", "HOME", "LANG", "TERM", "LD_PRELOAD", "LD_LIBRARY_PATH", "NODE_OPTIONS", "NODE_PATH", "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY"];

const McpMountSchema = mountSchema(["ro", "rw"], "a host directory the server sees at `guest`");

export const McpServerSchema = strictObject({
  command: v.pipe(
    v.optional(v.pipe(v.string(), v.check((s) => s === "node" || (s.startsWith("/") && !s.includes("\0") && s.length <= 4096), "expected an absolute path to the program, or node (the runtime's own Node.js)"))),
    v.description("stdio: the program to start; `node` is the runtime's own Node.js binary"),
  ),
  args: v.pipe(
    v.optional(v.pipe(v.array(v.pipe(v.string(), v.maxLength(4096), v.check((s) => !s.includes("\0"), "an argument may not contain NUL"))), v.maxLength(64))),
    v.description("stdio: the program's arguments, passed as they are (no shell)"),
  ),
  read_only: v.pipe(
    v.optional(v.pipe(v.array(v.pipe(v.string(), v.check((s) => s.startsWith("/"), "expected an absolute host path"))), v.maxLength(16), v.check((items) => unique(items), "paths must be unique"))),
    v.description("stdio: host directories or files the server needs to run (its package, e.g. a node_modules folder), visible read-only at their own paths"),
  ),
  mounts: v.pipe(v.optional(v.pipe(v.array(McpMountSchema), v.maxLength(16))), v.description("stdio: the server's own mounts; it sees nothing else of the host")),
  env: v.pipe(
    v.optional(
      v.pipe(
        v.record(
          v.pipe(v.string(), v.regex(ENV_NAME, "expected an environment variable name (uppercase letters, digits, '_')"), v.check((s) => !RESERVED_ENV.includes(s), "this variable is set by the sandbox itself or would make the program load another")),
          v.union(
            [
              v.pipe(v.string(), v.maxLength(MAX_ENV_VALUE, `expected at most ${MAX_ENV_VALUE} characters`), v.check((s) => !s.includes("\0"), "a value may not contain NUL")),
              strictObject({ secret: v.pipe(v.string(), v.regex(SECRET_NAME, "expected the name of a stored secret")) }),
            ],
            "expected a plain value (a string) or {secret: name}",
          ),
        ),
        v.check((env) => Object.keys(env).length <= MAX_ENV, `at most ${MAX_ENV} variables`),
      ),
    ),
    v.description("stdio: environment variables, each a plain value (shown as it is) or {secret: name}, a stored secret's value (redacted from what the server returns); nothing of the runtime's own environment is passed"),
  ),
  hosts: v.pipe(
    v.optional(v.custom<never>(() => false, "a stdio server gets no network: its sandbox has no network namespace but its own loopback, and forwarding for granted hosts is not offered yet; use a streamable HTTP server (url) or a plugin with http.fetch")),
    v.description("refused: a stdio server has no network"),
  ),
  url: v.pipe(
    v.optional(v.pipe(v.string(), v.url("expected an absolute URL like https://mcp.example.com/mcp"), v.maxLength(2048))),
    v.description("streamable HTTP: the server's endpoint; its host must be allowed by grants.http.fetch (credentials come from there too)"),
  ),
  tools: v.pipe(
    v.optional(v.pipe(v.array(v.pipe(v.string(), v.regex(TOOL_REGEX, "expected a tool name as clawhive names it: lowercase letters, digits, '_'"))), v.minLength(1), v.check((items) => unique(items), "tool names must be unique"))),
    v.description("the server's tools offered to the model; all accepted ones when absent"),
  ),
  call_timeout_ms: v.pipe(v.optional(v.pipe(v.number(), v.integer(), v.minValue(100), v.maxValue(3_600_000))), v.description("deadline of one call; default the agent's limits.call_timeout_ms")),
});

export const McpServersSchema = v.pipe(
  v.record(v.pipe(v.string(), v.regex(MCP_SERVER_NAME, SERVER_NAME_MESSAGE)), McpServerSchema),
  v.check((servers) => Object.keys(servers).length <= 16, "at most 16 MCP servers"),
);

export type McpServerSpec = v.InferOutput<typeof McpServerSchema>;
export type McpServers = v.InferOutput<typeof McpServersSchema>;
