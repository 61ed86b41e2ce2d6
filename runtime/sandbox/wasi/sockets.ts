/**
 * `wasi:sockets/*` of one instance: every interface served, nothing ever opened.
 *
 * Standard libraries import sockets whether or not the code opens one (Rust's wasm32-wasip2
 * std imports all seven interfaces, through wasi-libc), so a component importing them installs
 * with no capability for it. Raw sockets would bypass the http proxy (its allow-list, SSRF
 * defences and audit), so each call is refused as a host without network refuses it: one host
 * call `sockets.<interface>.<function>`, which the run records as a denial, then the WIT error
 * (wasmtime and jco's preview2-shim give `access-denied` for a socket or a lookup when network
 * is off). What a call cannot fail with gets an inert value: the instance's network is a handle
 * that grants nothing, no `wasi:io/error` is a network error. No socket resource is ever made,
 * so their methods are reachable only in theory; they refuse the same way.
 */
import type { WasiInstanceContext } from "./context.js";
import { Pollable } from "./streams.js";

/** The `error-code` of `wasi:sockets/network` a refusal carries (its WIT enum case). */
export const SOCKETS_REFUSAL = "access-denied";
/** For a method of a resource no guest can hold: the operation is not supported here. */
export const SOCKETS_NOT_SUPPORTED = "not-supported";
/** Longest host name a refused lookup keeps for the record. */
const MAX_NAME = 253;

/** `wasi:sockets/network.network`: what `instance-network` hands out; it opens nothing. */
class Network {}
class TcpSocket {}
class UdpSocket {}
class IncomingDatagramStream {}
class OutgoingDatagramStream {}
class ResolveAddressStream {}

/** Methods of each resource, by WIT name; `result` methods refuse with the WIT error, the others answer inert. */
const RESULT_METHODS: Readonly<Record<string, readonly string[]>> = {
  "tcp-socket": [
    "start-bind", "finish-bind", "start-connect", "finish-connect", "start-listen", "finish-listen", "accept",
    "local-address", "remote-address", "set-listen-backlog-size", "keep-alive-enabled", "set-keep-alive-enabled",
    "keep-alive-idle-time", "set-keep-alive-idle-time", "keep-alive-interval", "set-keep-alive-interval",
    "keep-alive-count", "set-keep-alive-count", "hop-limit", "set-hop-limit", "receive-buffer-size",
    "set-receive-buffer-size", "send-buffer-size", "set-send-buffer-size", "shutdown",
  ],
  "udp-socket": [
    "start-bind", "finish-bind", "stream", "local-address", "remote-address", "unicast-hop-limit", "set-unicast-hop-limit",
    "receive-buffer-size", "set-receive-buffer-size", "send-buffer-size", "set-send-buffer-size",
  ],
  "incoming-datagram-stream": ["receive"],
  "outgoing-datagram-stream": ["check-send", "send"],
  "resolve-address-stream": ["resolve-next-address"],
};

const camel = (wit: string) => wit.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());

export function socketsImports(context: WasiInstanceContext): Record<string, Record<string, unknown>> {
  /** Puts the call on record (the binding refuses it), then gives the guest its WIT error. */
  const refuse = (fn: string, errorCode: string, args: unknown[] = []): never => {
    context.hostCall("sockets", fn, args);
    throw errorCode;
  };
  const record = (fn: string) => void context.hostCall("sockets", fn, []);
  const methods = (cls: new () => object, iface: string, resource: string, inert: Record<string, () => unknown> = {}) => {
    const proto = cls.prototype as Record<string, unknown>;
    for (const wit of RESULT_METHODS[resource] ?? []) {
      proto[camel(wit)] = () => refuse(`${iface}.${resource}.${wit}`, SOCKETS_NOT_SUPPORTED);
    }
    for (const [name, answer] of Object.entries(inert)) {
      proto[camel(name)] = () => {
        record(`${iface}.${resource}.${name}`);
        return answer();
      };
    }
  };
  methods(TcpSocket, "tcp", "tcp-socket", { "is-listening": () => false, "address-family": () => "ipv4", subscribe: () => new Pollable() });
  methods(UdpSocket, "udp", "udp-socket", { "address-family": () => "ipv4", subscribe: () => new Pollable() });
  methods(IncomingDatagramStream, "udp", "incoming-datagram-stream", { subscribe: () => new Pollable() });
  methods(OutgoingDatagramStream, "udp", "outgoing-datagram-stream", { subscribe: () => new Pollable() });
  methods(ResolveAddressStream, "ip-name-lookup", "resolve-address-stream", { subscribe: () => new Pollable() });
  return {
    "wasi:sockets/network": {
      Network,
      networkErrorCode: () => {
        record("network.network-error-code");
        return undefined;
      },
    },
    "wasi:sockets/instance-network": {
      instanceNetwork: () => {
        record("instance-network.instance-network");
        return new Network();
      },
    },
    "wasi:sockets/tcp-create-socket": { createTcpSocket: () => refuse("tcp-create-socket.create-tcp-socket", SOCKETS_REFUSAL) },
    "wasi:sockets/udp-create-socket": { createUdpSocket: () => refuse("udp-create-socket.create-udp-socket", SOCKETS_REFUSAL) },
    "wasi:sockets/tcp": { TcpSocket },
    "wasi:sockets/udp": { UdpSocket, IncomingDatagramStream, OutgoingDatagramStream },
    "wasi:sockets/ip-name-lookup": {
      ResolveAddressStream,
      resolveAddresses: (_network: unknown, name: unknown) =>
        refuse("ip-name-lookup.resolve-addresses", SOCKETS_REFUSAL, [typeof name === "string" ? name.slice(0, MAX_NAME) : null]),
    },
  };
}

/** preview1's `ENOTSOCK`: the descriptor is not a socket (none is, here). */
const ENOTSOCK = 57;

/**
 * preview1's socket functions (`sock_accept`, `sock_recv`, `sock_send`, `sock_shutdown`), which
 * act on sockets a host hands over as descriptors: none ever is one here, so each call is put on
 * record as refused, like `wasi:sockets`, and answers `ENOTSOCK`.
 */
export function preview1SocketFunctions(context: WasiInstanceContext): Record<string, () => number> {
  const refuse = (fn: string) => () => {
    context.hostCall("sockets", `preview1.${fn}`, []);
    return ENOTSOCK;
  };
  return Object.fromEntries(["sock_accept", "sock_recv", "sock_send", "sock_shutdown"].map((fn) => [fn, refuse(fn)]));
}
