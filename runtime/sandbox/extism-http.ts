/**
 * Extism's own `http_request`, `http_status_code`, `http_headers` and `config_get` kernel
 * functions, served the clawhive way: a request is one `clawhive:host/http` fetch on the main
 * thread (allow-list, SSRF defences, host-attached credentials, limits, audit), and config
 * values are asked of the run (wasi/config.ts: the plugin's defaults and the agent's grant,
 * named secrets included), never the host's environment.
 */
import type { CallContext, ExtismPluginOptions } from "@extism/extism";
import type { HostResponse } from "./protocol.js";
import type { WasiGrant } from "./wasi/context.js";
import { configReader } from "./wasi/config.js";

type Functions = NonNullable<ExtismPluginOptions["functions"]>[string];

export interface ExtismChannels {
  hostCall: (iface: string, fn: string, args: unknown[]) => HostResponse;
  wasi: WasiGrant;
  /** Charges bytes stored into kernel blocks against the call's budget (throws over it). */
  charge: (bytes: number) => void;
  /** A refusal or a malformed request: the guest call traps with this message. */
  fail: (message: string) => never;
}

interface HttpRequestJson {
  url?: unknown;
  method?: unknown;
  headers?: unknown;
}

export function extismChannelFunctions(channels: ExtismChannels): Functions {
  let last: { status: number; headers: Record<string, string> } = { status: 0, headers: {} };
  const config = configReader(channels.hostCall, channels.wasi.config);
  const store = (ctx: CallContext, value: string | Uint8Array): bigint => {
    channels.charge(typeof value === "string" ? Buffer.byteLength(value) : value.byteLength);
    // A copy: the SDK keeps a view's whole underlying buffer as the block.
    return ctx.store(typeof value === "string" ? value : value.slice());
  };
  return {
    http_request: (ctx: CallContext, requestAddr: bigint, bodyAddr: bigint): bigint => {
      let request: HttpRequestJson;
      try {
        request = JSON.parse(ctx.read(requestAddr)?.text() ?? "") as HttpRequestJson;
      } catch {
        return channels.fail("http_request: the request is not a JSON object {url, method, headers}");
      }
      if (typeof request?.url !== "string") return channels.fail("http_request: url must be a string");
      const headers = request.headers && typeof request.headers === "object" ? Object.entries(request.headers as Record<string, unknown>) : [];
      const body = bodyAddr === 0n ? undefined : ctx.read(bodyAddr)?.bytes().slice();
      const response = channels.hostCall("http", "fetch", [
        {
          method: typeof request.method === "string" ? request.method.toUpperCase() : "GET",
          url: request.url,
          headers: headers.map(([name, value]) => ({ name, value: String(value) })),
          body: body && body.byteLength > 0 ? body : undefined,
        },
      ]);
      if (!response.ok) {
        last = { status: 0, headers: {} };
        const error = response.error as { tag?: string; val?: unknown };
        const message = error?.tag === "denied" ? (error.val as { message?: string })?.message : String(error?.val ?? "failed");
        return channels.fail(`http_request to ${request.url.slice(0, 200)} refused: ${message}`);
      }
      const value = response.value as { status: number; headers: Array<{ name: string; value: string }>; body: Uint8Array };
      last = { status: value.status, headers: Object.fromEntries(value.headers.map((h) => [h.name, h.value])) };
      return store(ctx, value.body);
    },
    http_status_code: (): number => last.status,
    http_headers: (ctx: CallContext): bigint => store(ctx, JSON.stringify(last.headers)),
    config_get: (ctx: CallContext, keyAddr: bigint): bigint => {
      const key = ctx.read(keyAddr)?.text();
      if (key === undefined) return 0n;
      let value: string | undefined;
      try {
        value = config.get(key);
      } catch (error) {
        return channels.fail(`config_get ${key.slice(0, 128)}: ${(error as Error).message}`);
      }
      return value === undefined ? 0n : store(ctx, value);
    },
  };
}
