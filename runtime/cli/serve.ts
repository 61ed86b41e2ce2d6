import { serve } from "@hono/node-server";
import { createApp } from "../api/app.js";
import { Runtime } from "../runtime.js";
import { parseCommandArgs } from "./args.js";
import { VERSION } from "./version.js";
import { InvalidInputError } from "../errors.js";

export const serveHelp = `clawhive serve — start the runtime and its HTTP API

  --host ADDR       listen address (default 127.0.0.1; env CLAWHIVE_HOST)
  --port N          listen port (default 7878; env CLAWHIVE_PORT)
  --data-dir DIR    where state lives (default ./.clawhive; env CLAWHIVE_DATA_DIR)`;

export async function serveCommand(argv: string[]): Promise<number> {
  const { values } = parseCommandArgs(argv, {
    host: { type: "string" },
    port: { type: "string" },
    "data-dir": { type: "string" },
  });
  const host = (values.host as string | undefined) ?? process.env.CLAWHIVE_HOST ?? "127.0.0.1";
  const portText = (values.port as string | undefined) ?? process.env.CLAWHIVE_PORT ?? "7878";
  const port = Number(portText);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new InvalidInputError(`--port ${portText}: expected a port number 0-65535`, { field: "port" });
  const dataDir = (values["data-dir"] as string | undefined) ?? process.env.CLAWHIVE_DATA_DIR ?? ".clawhive";
  const runtime = await Runtime.create({ dataDir, onProgress: (line) => console.error(line) });
  const app = createApp(runtime, { version: VERSION });
  const server = serve({ fetch: app.fetch, hostname: host, port }, (info) => {
    console.log(`clawhive ${VERSION} listening on http://${host}:${info.port} (${runtime.tools().length} tools from ${runtime.plugins().length} plugins)`);
  });
  await new Promise<void>((resolve) => {
    const stop = () => {
      server.close();
      void runtime.close().then(resolve);
    };
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  });
  return 0;
}
