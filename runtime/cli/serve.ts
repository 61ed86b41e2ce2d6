import { serve } from "@hono/node-server";
import { sharedParsePool } from "../../host-proxies/_parse/index.js";
import { API_SERVER_OPTIONS, createApp } from "../api/app.js";
import { ApiShutdown } from "../api/shutdown.js";
import { ensureAdminToken, openTokenStore } from "../api/auth/index.js";
import { formatListen, loadConfig, runtimeOptionsFrom } from "../config/index.js";
import { LazyMcpHttpSessions } from "../mcp/lazy.js";
import { createRuntimeMetrics } from "../metrics/index.js";
import { Runtime } from "../runtime.js";
import { parseCommandArgs } from "./args.js";
import { STORE_FLAGS, STORE_FLAGS_HELP } from "./store-path.js";
import { VERSION } from "./version.js";
import { createLogger, setRuntimeLogger } from "../log/index.js";
import { startTracing, stopTracing } from "../telemetry/tracing.js";
import { startWebhooks } from "../webhooks/start.js";
import type { WebhookDispatcher } from "../webhooks/index.js";

export const serveHelp = `clawhive serve — start the runtime and its HTTP API

  --config FILE     a clawhive.yaml or .json (default ./clawhive.yaml if present; env CLAWHIVE_CONFIG)
  --listen H:P      listen address (default 127.0.0.1:7878; env CLAWHIVE_LISTEN); a non-loopback
                    address also needs server.allow_non_loopback (env CLAWHIVE_ALLOW_NON_LOOPBACK=1)
  --host ADDR       listen host (env CLAWHIVE_HOST)
  --port N          listen port (env CLAWHIVE_PORT)
  --agents DIR      agent manifests (default the project's capabilities/; env CLAWHIVE_AGENTS_DIR)
${STORE_FLAGS_HELP}

  Every setting, its variable and default: docs/configuration.md. On the first start an admin
  token for the API is created and printed once on stdout (the store keeps only its hash).`;

/** How long a stop may wait for work in flight before the process exits anyway. */
export const STOP_GRACE_MS = 10_000;
/** How long a stop waits for the requests in flight to be answered before it closes their connections. */
const STOP_DRAIN_MS = 3000;
/** Then, how long answered responses get to leave before every connection is closed. */
const STOP_FLUSH_MS = 500;

export async function serveCommand(argv: string[]): Promise<number> {
  const { values } = parseCommandArgs(argv, {
    config: { type: "string" },
    listen: { type: "string" },
    host: { type: "string" },
    port: { type: "string" },
    agents: { type: "string" },
    ...STORE_FLAGS,
  });
  const config = await loadConfig({ env: process.env, cwd: process.cwd(), flags: values });
  // The server's own log (requests, failures) is structured; the lines below are for the person at the terminal.
  const logger = createLogger({ sync: false, ...(config.log.level === undefined ? {} : { level: config.log.level }), ...(config.log.format === undefined ? {} : { format: config.log.format }) });
  setRuntimeLogger(logger);
  await startTracing({ ...(config.telemetry.otlpEndpoint === undefined ? {} : { otlpEndpoint: config.telemetry.otlpEndpoint }), serviceName: config.telemetry.serviceName, serviceVersion: VERSION });
  const metrics = createRuntimeMetrics(undefined, { processMetrics: true });
  let webhooks: WebhookDispatcher | undefined;
  const runtime = await Runtime.create({
    ...runtimeOptionsFrom(config, { onProgress: (line) => logger.info(line), onSandboxEvent: metrics.observeSandboxEvent }),
    onRun: (run, how) => {
      metrics.observeRun(run, { resumed: how === "resumed" });
      webhooks?.observe(run);
    },
    runSchedules: true,
  });
  metrics.collectSandbox(() => runtime.sandbox.stats());
  // A webhook refused at start (a secret not stored) ends the command with its message; the
  // runtime's workers and schedules would otherwise keep the process alive with nothing served.
  webhooks = await startWebhooks(config.webhooks, runtime, { log: logger, consoleUrl: config.console.publicUrl }).catch(async (error: unknown) => {
    await runtime.close().catch(() => undefined);
    throw error;
  });
  const tokens = await openTokenStore(runtime.store, { clock: runtime.clock });
  const first = await ensureAdminToken(tokens);
  if (first !== undefined) {
    console.error(`clawhive: first start: created admin token ${first.info.id}; it is shown this once (the store keeps only its hash):`);
    console.log(first.token);
  }
  const mcp = new LazyMcpHttpSessions(runtime, { version: VERSION });
  const shutdown = new ApiShutdown();
  const app = createApp({
    runtime,
    shutdown,
    mcp,
    tokens,
    version: VERSION,
    logger,
    ...(webhooks === undefined ? {} : { webhooks }),
    metrics,
    agentsDir: runtime.agentsDir,
    // A decision continues its run at once here (the driver's tick would within a second).
    onApprovalDecided: (approval) => void runtime.continueRun(approval.runId).catch(() => undefined),
    limits: { bodyLimitBytes: config.server.bodyLimitBytes, maxConcurrentRequests: config.server.maxConcurrentRequests },
    cors: { origins: config.server.corsOrigins },
    hosts: { listen: { host: config.server.host, port: config.server.port }, allowedHosts: config.server.allowedHosts },
    metricsToken: config.server.metricsToken,
  });
  const { host } = config.server;
  const server = serve({ fetch: app.fetch, hostname: host, port: config.server.port, serverOptions: { ...API_SERVER_OPTIONS } }, (info) => {
    console.log(`clawhive ${VERSION} listening on http://${formatListen({ host, port: info.port })} (${runtime.tools().length} tools from ${runtime.plugins().length} plugins)`);
  });
  await stopOnSignals(async () => {
    // Requests waiting on a run are answered first (503 server_stopping, naming the run), and
    // every request in flight gets its answer out before the connections close.
    shutdown.begin();
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    await shutdown.drained(STOP_DRAIN_MS);
    const http = server as { closeIdleConnections?: () => void; closeAllConnections?: () => void };
    http.closeIdleConnections?.();
    await Promise.race([closed, new Promise<void>((resolve) => setTimeout(resolve, STOP_FLUSH_MS).unref())]);
    // Open streams (SSE) and sockets still busy would otherwise hold close() open.
    http.closeAllConnections?.();
    // Parses in flight fail at once ("shut down"), so their steps end instead of waiting out a deadline.
    await sharedParsePool().close();
    // MCP sessions end their runs (with their reports) before the runtime closes.
    await mcp.close();
    await webhooks?.close();
    await runtime.close();
    // The spans of the runs that just ended are sent before the process exits.
    await stopTracing().catch(() => undefined);
  });
  // A stopped server exits even if a client's socket or a worker still holds the event loop.
  setTimeout(() => process.exit(process.exitCode ?? 0), 1000).unref();
  return 0;
}

/**
 * Resolves once SIGINT or SIGTERM has run `stop`. A stop that takes longer than `graceMs`
 * (a guest or a parse still busy) exits the process anyway: its runs keep their state in the
 * store and are taken over on the next start. A second signal exits at once.
 */
export function stopOnSignals(stop: () => Promise<void>, graceMs = STOP_GRACE_MS): Promise<void> {
  return new Promise<void>((resolve) => {
    let stopping = false;
    const onSignal = (signal: NodeJS.Signals) => {
      if (stopping) {
        console.error(`clawhive: ${signal} again: exiting now`);
        process.exit(1);
      }
      stopping = true;
      console.error(`clawhive: ${signal}: stopping`);
      const force = setTimeout(() => {
        console.error(`clawhive: stopping took longer than ${graceMs / 1000} s; exiting with work in flight (its runs resume on the next start)`);
        process.exit(1);
      }, graceMs);
      void stop()
        .catch((error: unknown) => console.error(`clawhive: while stopping: ${error instanceof Error ? error.message : String(error)}`))
        .finally(() => {
          clearTimeout(force);
          resolve();
        });
    };
    process.on("SIGINT", onSignal);
    process.on("SIGTERM", onSignal);
  });
}
