/**
 * A loopback TCP server that goes silent without closing anything: it accepts connections and
 * never answers (no `target`), or forwards to `target` until told to stall, then lets at most
 * `stall` more bytes of each answer through and holds the rest — the connection stays open, the
 * peer waits. It stands for a libSQL server that hangs (SIGSTOP, a stuck disk, a dead NAT entry).
 */
import { connect, createServer, type Server, type Socket } from "node:net";

export interface StallingProxy {
  readonly url: string;
  /** Connections accepted so far. */
  readonly accepted: number;
  /**
   * Undefined forwards everything; a number lets that many bytes of each answer through (counted
   * from the request before it, on every connection, pooled ones too), then holds the rest.
   */
  stall: number | undefined;
  close(): Promise<void>;
}

export async function startStallingProxy(target?: { host: string; port: number }): Promise<StallingProxy> {
  const sockets = new Set<Socket>();
  let accepted = 0;
  let stall: number | undefined = target === undefined ? 0 : undefined;
  const server: Server = createServer((client) => {
    accepted++;
    sockets.add(client);
    client.on("error", () => undefined);
    client.on("close", () => sockets.delete(client));
    if (target === undefined) {
      // Accepted, read, never answered.
      client.resume();
      return;
    }
    const upstream = connect(target.port, target.host);
    sockets.add(upstream);
    upstream.on("error", () => undefined);
    const budget = { left: stall };
    client.on("data", (chunk: Buffer) => {
      // A request (or a part of one): its answer gets the budget set now.
      budget.left = stall;
      upstream.write(chunk);
    });
    upstream.on("data", (chunk: Buffer) => {
      if (budget.left === undefined) return void client.write(chunk);
      const passed = chunk.subarray(0, Math.max(0, budget.left));
      budget.left -= passed.byteLength;
      if (passed.byteLength > 0) client.write(passed);
    });
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on("close", end);
    upstream.on("close", () => {
      sockets.delete(upstream);
      // A stalled answer stays stalled: the client is left waiting, as on a hung server.
      if (budget.left === undefined) client.destroy();
    });
  });
  await new Promise<void>((resolveListen) => server.listen(0, "127.0.0.1", resolveListen));
  const address = server.address();
  const port = typeof address === "object" && address !== null ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    get accepted() {
      return accepted;
    },
    get stall() {
      return stall;
    },
    set stall(value) {
      stall = value;
    },
    close: () =>
      new Promise<void>((resolveClose) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolveClose());
      }),
  };
}
