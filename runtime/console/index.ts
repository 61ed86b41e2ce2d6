/**
 * The web console: server-rendered pages at `/` over the same Hono app as the API, signed in
 * with an API token exchanged for a server-side session. Every page reads and decides through
 * the app's own `/v1` routes with the signed-in token, so the console adds no rule of its own.
 */
import type { Hono } from "hono";
import type { ApiEnv, TokenStore } from "../api/auth/index.js";
import type { Clock, Store } from "../store/index.js";
import { consoleAssets } from "./assets.js";
import { consoleHeaders } from "./headers.js";
import { addConsoleRoutes } from "./routes.js";
import { openSessionStore, type SessionStore } from "./sessions.js";

export { CONSOLE_CSP } from "./headers.js";
export { SESSION_COOKIE, SIGN_IN_COOKIE } from "./routes.js";
export { openSessionStore, SessionStore, sessionMigrations, DEFAULT_SESSION_MS } from "./sessions.js";

export interface ConsoleOptions {
  readonly store: Store;
  readonly clock: Clock;
  readonly tokens: Pick<TokenStore, "verify">;
  /** How long a sign-in lasts; default 8 hours. */
  readonly sessionMs?: number;
}

/** The paths the console serves (everything else stays the API's). */
const CONSOLE_PATHS = ["/", "/sign-in", "/sign-out", "/approvals", "/approvals/*", "/patterns", "/patterns/*", "/runs", "/runs/*", "/audit", "/audit/*", "/plugins", "/agents", "/agents/*", "/console/*"];

/** Mounts the console on `app`; its session table is migrated on the first request that needs it. */
export function mountConsole(app: Hono<ApiEnv>, options: ConsoleOptions): void {
  let opened: Promise<SessionStore> | undefined;
  const sessions = () => {
    opened ??= openSessionStore(options.store, { clock: options.clock, ...(options.sessionMs === undefined ? {} : { ttlMs: options.sessionMs }) }).catch((error: unknown) => {
      opened = undefined;
      throw error;
    });
    return opened;
  };
  for (const path of CONSOLE_PATHS) app.use(path, consoleHeaders());
  consoleAssets(app);
  addConsoleRoutes(app, sessions, options.tokens);
}
