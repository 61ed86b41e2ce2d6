/**
 * The HTTP API with the runtime's resource routes (plugins, agents, tools, approvals, audit,
 * secrets, schedules, skills, memory, runs) mounted in the frame app-core.ts builds.
 */
import type { Hono } from "hono";
import type { Runtime } from "../runtime.js";
import type { ApiEnv } from "./auth/index.js";
import { createCoreApp, type AppOptions } from "./app-core.js";
import { mountConsole } from "../console/index.js";
import { mcpServerRoutes } from "./routes/mcp-servers.js";
import { runRoutes } from "./routes/runs.js";
import { compactionRoutes } from "./routes/compactions.js";
import { runResumeRoutes } from "./routes/run-resume.js";
import { runTodoRoutes } from "./routes/run-todo.js";
import { scheduleRoutes } from "./routes/schedules.js";
import { skillRoutes } from "./routes/skills.js";
import { memoryRoutes } from "./routes/memory.js";
import { webhookRoutes } from "./routes/webhooks.js";
import { pluginKeyRoutes } from "./routes/plugin-keys.js";
import { AgentCatalog, agentRoutes, approvalRoutes, approvalPatternRoutes, auditRoutes, pluginRoutes, secretRoutes, toolRoutes } from "./routes/index.js";
import type { ApiRoute } from "./routes/index.js";

export { API_SERVER_OPTIONS, DEFAULT_HOST, type ApiLimits, type AppOptions } from "./app-core.js";

/** The HTTP API of a runtime: its resource routes in the frame (middleware, order, errors) `createCoreApp` describes. */
export function createApp(options: AppOptions): Hono<ApiEnv> {
  const app = createCoreApp(options, options.runtime === undefined ? [] : runtimeRoutes(options.runtime, options));
  if (options.runtime !== undefined) mountConsole(app, { store: options.runtime.store, clock: options.runtime.clock, tokens: options.tokens });
  return app;
}

/** The runtime's resource routes, in the order they are mounted and documented. */
function runtimeRoutes(runtime: Runtime, options: AppOptions): ApiRoute[] {
  const agents = new AgentCatalog(runtime, options.agentsDir === undefined ? {} : { agentsDir: options.agentsDir });
  return [
    ...pluginRoutes(runtime, { ...(options.pluginDownload === undefined ? {} : { download: options.pluginDownload }), ...(options.pluginUploadDir === undefined ? {} : { tempDir: options.pluginUploadDir }), localSources: options.pluginLocalSources === true }),
    ...pluginKeyRoutes(runtime),
    ...agentRoutes(agents),
    ...toolRoutes(runtime, agents),
    ...mcpServerRoutes(runtime),
    // Before /v1/approvals/:id, which would otherwise take `events` for an id.
    ...(options.webhooks === undefined ? [] : webhookRoutes(options.webhooks)),
    ...approvalRoutes(runtime, {
      ...(options.onApprovalDecided === undefined ? {} : { onApprovalDecided: options.onApprovalDecided }),
      ...(options.log === undefined ? {} : { log: options.log }),
    }),
    ...approvalPatternRoutes(runtime),
    ...auditRoutes(runtime, options.runOwner === undefined ? {} : { runOwner: options.runOwner }),
    ...secretRoutes(runtime),
    ...scheduleRoutes(runtime.scheduler),
    ...skillRoutes(runtime, { dir: runtime.skillsDir }),
    ...memoryRoutes(runtime),
    ...runRoutes(runtime, options.shutdown === undefined ? {} : { shutdown: options.shutdown }),
    ...compactionRoutes(runtime),
    ...runResumeRoutes(runtime),
    ...runTodoRoutes(runtime),
  ];
}
