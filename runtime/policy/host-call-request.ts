/**
 * Which capability a host call needs, and the request the catalogue's matchers decide on.
 * A host function not listed here does not exist for the policy: it is denied.
 */
import type { FsOp } from "../../host-proxies/fs/index.js";
import { canonicalizeHttpRequest, parseHttpRequestRecord } from "../../host-proxies/http/index.js";
import { HostProxyError, type Denial, type HostCall } from "../../host-proxies/types.js";
import type { CapabilityName } from "./catalogue/index.js";

export interface CapabilityRequest {
  capability: CapabilityName;
  /** The request in the shape the capability's matcher takes (`RequestOf<capability>`). */
  request: unknown;
  /** What is recorded and what an approval binds to: the call's arguments, canonical. */
  canonical: Record<string, unknown>;
}

const FS_OPS: Record<string, FsOp> = {
  read: "read",
  listDir: "list",
  stat: "stat",
  write: "write",
  remove: "remove",
  mkdir: "mkdir",
};

export function hostCallRequest(call: HostCall): CapabilityRequest | Denial {
  if (call.iface === "fs") {
    if (call.fn === "mounts") return { capability: "fs.read", request: null, canonical: { fn: "mounts" } };
    const op = Object.hasOwn(FS_OPS, call.fn) ? FS_OPS[call.fn] : undefined;
    const path = call.args[0];
    if (!op) return unknownFunction(call);
    if (typeof path !== "string") return { capability: `fs.${op === "read" || op === "list" || op === "stat" ? "read" : "write"}`, reason: "invalid-input", message: `fs.${call.fn}: expected a path string` };
    const capability: CapabilityName = op === "read" || op === "list" || op === "stat" ? "fs.read" : "fs.write";
    const canonical: Record<string, unknown> = { fn: call.fn, path };
    if (op === "write" && call.args[1] instanceof Uint8Array) canonical.bytes = call.args[1].byteLength;
    return { capability, request: { op, path }, canonical };
  }
  if (call.iface === "log" && call.fn === "write") return { capability: "log", request: {}, canonical: { fn: "write", level: call.args[0] } };
  if (call.iface === "shell" && call.fn === "exec") return shellRequest(call.args[0]);
  if (call.iface === "http" && call.fn === "fetch") return httpRequest(call.args[0]);
  return unknownFunction(call);
}

/**
 * `http.fetch`: canonicalised by the http proxy's own canonicaliser (WHATWG URL, default port,
 * IDNA, header rules); the policy decides on scheme, host, port and method, and the approval of
 * an effect binds the canonical URL and method.
 */
function httpRequest(raw: unknown): CapabilityRequest | Denial {
  try {
    const { canonical, request } = canonicalizeHttpRequest(parseHttpRequestRecord(raw));
    return { capability: "http.fetch", request, canonical: { fn: "fetch", method: canonical.method, url: canonical.url } };
  } catch (error) {
    if (error instanceof HostProxyError) {
      const e = error.hostError;
      return e.tag === "denied" ? e.val : { capability: "http.fetch", reason: "invalid-input", message: e.val };
    }
    throw error;
  }
}

/**
 * `shell.exec`: the argv and cwd as the guest sent them. The approval of an Unsafe effect binds
 * exactly these; the shell proxy resolves and confines what actually runs.
 */
function shellRequest(raw: unknown): CapabilityRequest | Denial {
  const request = raw && typeof raw === "object" ? (raw as { argv?: unknown; cwd?: unknown }) : {};
  const argv = request.argv;
  if (!Array.isArray(argv) || argv.length === 0 || !argv.every((a) => typeof a === "string")) {
    return { capability: "shell.exec", reason: "invalid-input", message: "shell.exec: argv must be a non-empty list of strings" };
  }
  if (request.cwd !== undefined && typeof request.cwd !== "string") {
    return { capability: "shell.exec", reason: "invalid-input", message: "shell.exec: cwd must be a string" };
  }
  const cwd = request.cwd as string | undefined;
  return { capability: "shell.exec", request: { argv, cwd }, canonical: { fn: "exec", argv, cwd: cwd ?? null } };
}

function unknownFunction(call: HostCall): Denial {
  return { capability: `${call.iface}.${call.fn}`, reason: "unknown-function", message: `there is no host function ${call.iface}.${call.fn}` };
}

export function isDenial(value: CapabilityRequest | Denial): value is Denial {
  return "reason" in value;
}
