/**
 * The host side of `wit/host/types.wit`: what every host proxy returns and throws.
 * Values here cross the worker bridge, so they are plain data (structured-clonable).
 */
import { ClawhiveError } from "../runtime/errors.js";

/** Why a host call was refused (`clawhive:host/types.denial`). */
export interface Denial {
  /** The capability the call needed, e.g. `fs.read`. */
  capability: string;
  /** A stable reason code, e.g. `outside-mount`, `read-only-mount`, `sensitive-name`. */
  reason: string;
  message: string;
}

/**
 * One grant's decision on one canonical request: what every proxy's matcher returns and the
 * policy gate ANDs across layers.
 */
export type Decision = { allow: true } | { allow: false; denial: Denial };

export const ALLOW: Decision = Object.freeze({ allow: true });

export function deny(capability: string, reason: string, message: string): Decision {
  return { allow: false, denial: { capability, reason, message } };
}

/** `clawhive:host/types.host-error`, in jco's `{tag, val}` shape. */
export type HostError =
  | { tag: "denied"; val: Denial }
  | { tag: "not-found"; val: string }
  | { tag: "invalid-input"; val: string }
  | { tag: "io"; val: string };

/**
 * Thrown by a host proxy; the bridge turns it into the WIT error case the guest sees.
 * The message is the operator's view; `hostError` is exactly what the guest receives.
 */
export class HostProxyError extends ClawhiveError {
  readonly hostError: HostError;

  constructor(hostError: HostError, options: { cause?: unknown } = {}) {
    const text = hostError.tag === "denied" ? hostError.val.message : hostError.val;
    super(`host_${hostError.tag.replace("-", "_")}`, text, {
      status: hostError.tag === "denied" ? 403 : hostError.tag === "not-found" ? 404 : hostError.tag === "io" ? 500 : 400,
      cause: options.cause,
    });
    this.hostError = hostError;
  }

  static denied(capability: string, reason: string, message: string): HostProxyError {
    return new HostProxyError({ tag: "denied", val: { capability, reason, message } });
  }
  static notFound(message: string): HostProxyError {
    return new HostProxyError({ tag: "not-found", val: message });
  }
  static invalidInput(message: string): HostProxyError {
    return new HostProxyError({ tag: "invalid-input", val: message });
  }
  static io(message: string, cause?: unknown): HostProxyError {
    return new HostProxyError({ tag: "io", val: message }, { cause });
  }
}

/** One host call as it arrives from a guest: `clawhive:host/<iface>` function `fn`. */
export interface HostCall {
  /** Interface name without version, e.g. `fs`, `log`. */
  iface: string;
  /** Function name in camelCase as jco lifts it, e.g. `listDir`. */
  fn: string;
  args: unknown[];
}

export type HostCallResult = { ok: true; value: unknown } | { ok: false; error: HostError };

/**
 * Serves the host calls of one bound instance. Lives on the main thread; never throws
 * (failures are `{ok: false}`), so a guest always gets a WIT error case, never a trap.
 */
export type HostCallHandler = (call: HostCall) => Promise<HostCallResult>;
