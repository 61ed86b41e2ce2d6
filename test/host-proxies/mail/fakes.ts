/**
 * Servers the mail tests send to, on 127.0.0.1, each stopping with its test: a real SMTP
 * dialogue (nodemailer's smtp-server), a server that accepts connections and never greets, and
 * a fake of the Gmail API's `users.messages.send` with Google's real answer and error shapes.
 */
import { createServer as createHttpServer, type IncomingMessage } from "node:http";
import { createServer as createTcpServer, type Socket } from "node:net";
import type { AddressInfo } from "node:net";
import { SMTPServer } from "smtp-server";

export interface Received {
  from: string;
  to: string[];
  data: string;
}

export async function smtpServer(): Promise<{ port: number; received: Received[]; close: () => Promise<void> }> {
  const received: Received[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (c: Buffer) => chunks.push(c));
      stream.on("end", () => {
        const from = session.envelope.mailFrom === false ? "" : session.envelope.mailFrom.address;
        received.push({ from, to: session.envelope.rcptTo.map((r) => r.address), data: Buffer.concat(chunks).toString("utf8") });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.server.address() as AddressInfo).port;
  return { port, received, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** Accepts every connection and says nothing: a stuck or firewalled-by-blackhole server. */
export async function silentServer(): Promise<{ port: number; close: () => Promise<void> }> {
  const sockets = new Set<Socket>();
  const server = createTcpServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    }),
  };
}

export interface GmailSent {
  authorization: string | undefined;
  raw: string;
}

/**
 * `POST /gmail/v1/users/me/messages/send` as Google answers it: 200 with a Message resource
 * (`{id, threadId, labelIds: ["SENT"]}`); a token other than `good-token` gets Google's 401
 * (`{error: {code: 401, message, errors: [{reason: "authError"}], status: "UNAUTHENTICATED"}}`).
 */
export async function gmailApi(): Promise<{ baseUrl: string; sent: GmailSent[]; close: () => Promise<void> }> {
  const sent: GmailSent[] = [];
  const server = createHttpServer(async (request: IncomingMessage, response) => {
    const chunks: Buffer[] = [];
    for await (const c of request) chunks.push(c as Buffer);
    const json = (status: number, body: unknown) => {
      response.writeHead(status, { "content-type": "application/json; charset=UTF-8" });
      response.end(JSON.stringify(body));
    };
    if (request.method !== "POST" || request.url !== "/gmail/v1/users/me/messages/send") return json(404, { error: { code: 404, message: "Not Found", status: "NOT_FOUND" } });
    if (request.headers.authorization !== "Bearer good-token") {
      return json(401, {
        error: {
          code: 401,
          message: "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.",
          errors: [{ message: "Invalid Credentials", domain: "global", reason: "authError", location: "Authorization", locationType: "header" }],
          status: "UNAUTHENTICATED",
        },
      });
    }
    const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { raw?: string };
    if (typeof body.raw !== "string") return json(400, { error: { code: 400, message: "Invalid value for ByteString", status: "INVALID_ARGUMENT" } });
    sent.push({ authorization: request.headers.authorization, raw: Buffer.from(body.raw, "base64url").toString("utf8") });
    json(200, { id: "18c2f0a1b2c3d4e5", threadId: "18c2f0a1b2c3d4e5", labelIds: ["SENT"] });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, sent, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}
