/** The reference server of the HTTP figures: Hono on @hono/node-server, nothing else. */
import { serve } from "@hono/node-server";
import { Hono } from "hono";
import type { AddressInfo } from "node:net";

const app = new Hono();
app.post("/v1/runs", async (c) => c.json({ run: { status: "ended", echo: await c.req.json() } }, 201));
const server = serve({ fetch: app.fetch, hostname: "127.0.0.1", port: 0 }, () => {
  console.log(`listening on http://127.0.0.1:${(server.address() as AddressInfo).port}`);
});
process.on("SIGTERM", () => server.close(() => process.exit(0)));
