/**
 * A forward proxy on 127.0.0.1 that only tunnels (HTTP CONNECT, RFC 9110 §9.3.6), as undici's
 * ProxyAgent uses it for http and https targets alike. It records each CONNECT target and its
 * Proxy-Authorization header, so a test can see that the provider's traffic went through it.
 */
import { createServer, type Server } from "node:http";
import { connect, type AddressInfo, type Socket } from "node:net";

export interface ProxyConnect {
  target: string;
  proxyAuthorization: string | undefined;
}

export class FakeProxy {
  readonly connects: ProxyConnect[] = [];
  #server: Server;
  #sockets = new Set<Socket>();
  url = "";

  constructor() {
    this.#server = createServer((_req, res) => {
      res.writeHead(405).end("this proxy only tunnels (CONNECT)");
    });
    this.#server.on("connect", (req, client: Socket, head: Buffer) => {
      const target = req.url ?? "";
      const auth = req.headers["proxy-authorization"];
      this.connects.push({ target, proxyAuthorization: typeof auth === "string" ? auth : undefined });
      const [host, port] = target.split(":");
      const upstream = connect(Number(port), host ?? "127.0.0.1", () => {
        client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
        if (head.length > 0) upstream.write(head);
        upstream.pipe(client);
        client.pipe(upstream);
      });
      for (const s of [client, upstream]) {
        this.#sockets.add(s);
        s.on("close", () => this.#sockets.delete(s));
        s.on("error", () => {
          client.destroy();
          upstream.destroy();
        });
      }
    });
  }

  async listen(): Promise<this> {
    await new Promise<void>((resolve) => this.#server.listen(0, "127.0.0.1", resolve));
    this.#server.unref();
    this.url = `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
    return this;
  }

  async close(): Promise<void> {
    for (const s of this.#sockets) s.destroy();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}

export async function startFakeProxy(): Promise<FakeProxy> {
  return new FakeProxy().listen();
}
