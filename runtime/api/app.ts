import { Hono } from "hono";
import { ClawhiveError } from "../errors.js";
import type { Runtime } from "../runtime.js";

export interface AppOptions {
  version: string;
}

/**
 * The HTTP API. Errors always answer `{error: {code, message, field?}}` with the error's status;
 * nothing else (no stack trace) leaves the process.
 */
export function createApp(runtime: Runtime, options: AppOptions): Hono {
  const app = new Hono();

  app.get("/health", (c) =>
    c.json({
      status: "ok",
      version: options.version,
      plugins: runtime.plugins().length,
      tools: runtime.tools().length,
      sandbox: runtime.sandbox.stats(),
    }),
  );

  app.notFound((c) => c.json({ error: { code: "not_found", message: `no route for ${c.req.method} ${c.req.path}` } }, 404));

  app.onError((error, c) => {
    if (error instanceof ClawhiveError) {
      const field = "field" in error && typeof error.field === "string" ? { field: error.field } : {};
      return c.json({ error: { code: error.code, message: error.message, ...field } }, error.status as 400);
    }
    return c.json({ error: { code: "internal", message: "internal error" } }, 500);
  });

  return app;
}
