import { request } from "node:https";
import { InvalidInputError, PluginError } from "../../errors.js";

export interface DownloadOptions {
  /** Extra trusted CA certificates (PEM), e.g. a private registry's. */
  ca?: string | Buffer;
  maxBytes?: number;
  /** Longest silence on the socket. Default 60 s. */
  timeoutMs?: number;
  /** The whole download, every redirect included: a server dripping a byte a minute must not hold an install open. Default 300 s. */
  deadlineMs?: number;
}

/**
 * GETs an https URL into memory, following at most 5 redirects (each https), capped in size and
 * time. The caller checks the bytes against the sha256 it was given before using them. No
 * `accept-encoding` is sent and nothing is decoded here: the bytes hashed are the bytes sent.
 */
export async function download(url: URL, options: DownloadOptions = {}): Promise<Uint8Array> {
  const max = options.maxBytes ?? 64 << 20;
  const deadlineMs = options.deadlineMs ?? 300_000;
  const signal = AbortSignal.timeout(deadlineMs);
  let current = url;
  for (let hop = 0; hop <= 5; hop++) {
    const response = await get(current, { ...options, signal }, max).catch((error: unknown) => {
      if (signal.aborted) throw new PluginError("download_failed", `${url.href}: not downloaded within ${deadlineMs} ms`, { cause: error });
      throw error;
    });
    if (response.redirect === undefined) return response.bytes;
    const next = new URL(response.redirect, current);
    if (next.protocol !== "https:") throw new PluginError("download_failed", `${url.href}: redirected to a non-https URL (${next.protocol}); refused`);
    current = next;
  }
  throw new PluginError("download_failed", `${url.href}: more than 5 redirects`);
}

function get(url: URL, options: DownloadOptions & { signal: AbortSignal }, max: number): Promise<{ bytes: Uint8Array; redirect?: string }> {
  return new Promise((resolvePromise, reject) => {
    const req = request(url, { method: "GET", ...(options.ca ? { ca: options.ca } : {}), timeout: options.timeoutMs ?? 60_000, signal: options.signal }, (res) => {
      const status = res.statusCode ?? 0;
      // The body of a redirect or an error is not read: it could be endless.
      if (status >= 300 && status < 400 && res.headers.location) {
        res.destroy();
        resolvePromise({ bytes: new Uint8Array(), redirect: res.headers.location });
        return;
      }
      if (status !== 200) {
        res.destroy();
        reject(new PluginError("download_failed", `${url.href}: HTTP ${status}`));
        return;
      }
      const declared = Number(res.headers["content-length"] ?? 0);
      if (declared > max) {
        res.destroy();
        reject(new InvalidInputError(`${url.href}: ${declared} bytes, more than the ${max} a plugin may have`, { field: "source" }));
        return;
      }
      const parts: Buffer[] = [];
      let size = 0;
      res.on("data", (d: Buffer) => {
        size += d.length;
        if (size > max) {
          res.destroy();
          reject(new InvalidInputError(`${url.href}: more than the ${max} bytes a plugin may have`, { field: "source" }));
          return;
        }
        parts.push(d);
      });
      res.on("end", () => resolvePromise({ bytes: new Uint8Array(Buffer.concat(parts)) }));
      res.on("error", (error) => reject(new PluginError("download_failed", `${url.href}: ${error.message}`, { cause: error })));
    });
    req.on("timeout", () => req.destroy(new Error("timed out")));
    req.on("error", (error) => reject(new PluginError("download_failed", `${url.href}: ${error.message}`, { cause: error })));
    req.end();
  });
}
