/**
 * A loopback TCP proxy that can drop connections part way: after `cutAfterRequestBytes` bytes
 * from the client, or `cutAfterResponseBytes` bytes from the server, both sides are destroyed.
 * It stands for a server or network that fails mid-batch.
 */
import { createServer, connect, type Server, type Socket } from "node:net";

export interface CuttingProxy {
  readonly url: string;
  /** Bytes at which connections are cut; undefined forwards everything. Setting it closes open connections. */
  cut: { request?: number; response?: number };
  /** How many connections were cut so far. */
  readonly cuts: number;
  close(): Promise<void>;
}

export async function startCuttingProxy(target: { host: string; port: number }): Promise<CuttingProxy> {
  const sockets = new Set<Socket>();
  let cuts = 0;
  const proxy: { cut: { request?: number; response?: number } } = { cut: {} };
  const server: Server = createServer((client) => {
    const upstream = connect(target.port, target.host);
    sockets.add(client).add(upstream);
    const limits = { ...proxy.cut };
    let sent = 0;
    let received = 0;
    const cut = () => {
      cuts++;
      client.destroy();
      upstream.destroy();
    };
    client.on("data", (chunk: Buffer) => {
      sent += chunk.byteLength;
      if (limits.request !== undefined && sent > limits.request) {
        upstream.write(chunk.subarray(0, chunk.byteLength - (sent - limits.request)), cut);
        return;
      }
      upstream.write(chunk);
    });
    upstream.on("data", (chunk: Buffer) => {
      received += chunk.byteLength;
      if (limits.response !== undefined && received > limits.response) {
        client.write(chunk.subarray(0, chunk.byteLength - (received - limits.response)), cut);
        return;
      }
      client.write(chunk);
    });
    for (const socket of [client, upstream]) {
      socket.on("error", () => undefined);
      socket.on("close", () => {
        sockets.delete(socket);
        client.destroy();
        upstream.destroy();
      });
    }
  });
  await new Promise<void>((resolveListen) => server.listen(0, "127.0.0.1", resolveListen));
  const address = server.address();
  const port = typeof address === "object" && address !== null ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    get cut() {
      return proxy.cut;
    },
    set cut(value) {
      // Pooled keep-alive connections would carry the old limits: new limits, new connections.
      proxy.cut = value;
      for (const socket of sockets) socket.destroy();
    },
    get cuts() {
      return cuts;
    },
    close: () =>
      new Promise<void>((resolveClose) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolveClose());
      }),
  };
}
