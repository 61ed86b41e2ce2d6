/**
 * `message.send`: which incoming-webhook hosts an agent may post chat messages to (Slack's
 * `hooks.slack.com`, a Teams workflow host, any JSON webhook). Hosts are the http grant's
 * patterns and are decided on the http proxy's canonical URL; the post goes through the http
 * proxy, so private and loopback addresses are refused unless `allow_addresses` lists them.
 */
import * as v from "valibot";
import { HostPatternSchema, hostMatches, hostPatternCovers, isCanonicalIp } from "../../../host-proxies/http/host-pattern.js";
import type { MessageResource } from "../../../host-proxies/message/proxy.js";
import { strictObject } from "./strict.js";
import { unique } from "./names.js";
import type { CapabilityEntry, Coverage, Decision } from "./types.js";
import { ALLOW, COVERED, deny, firstUncovered, notCovered } from "./types.js";

const MessageSendResourceSchema = strictObject({
  schemes: v.pipe(v.optional(v.array(v.picklist(["https", "http"])), () => ["https" as const]), v.check((items) => unique(items), "schemes must be unique")),
  hosts: v.pipe(v.array(HostPatternSchema), v.minLength(1, "expected at least one host pattern"), v.check((items) => unique(items), "host patterns must be unique"), v.description("webhook hosts: hooks.slack.com")),
  ports: v.optional(v.array(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(65535)))),
  allow_addresses: v.pipe(
    v.optional(v.array(v.pipe(v.string(), v.ip(), v.check(isCanonicalIp, "write the address in canonical form"))), () => []),
    v.description("private or loopback addresses a post may still reach, exactly as listed"),
  ),
});
export type MessageSendResource = v.InferOutput<typeof MessageSendResourceSchema>;
// The grant is the message proxy's resource as it is: one shape on both sides.
const _same: MessageResource = {} as MessageSendResource;
void _same;

/** The canonical URL's parts, as the http proxy's canonicaliser gives them. */
export interface MessageSendRequest {
  scheme: string;
  host: string;
  port: number;
}

const DEFAULT_PORTS: Record<string, number> = { https: 443, http: 80 };

function covers(outer: MessageSendResource, inner: MessageSendResource): Coverage {
  return firstUncovered(
    () => {
      const i = inner.schemes.findIndex((s) => !outer.schemes.includes(s));
      return i < 0 ? COVERED : notCovered(`schemes[${i}]`, "not in the outer grant");
    },
    () => {
      const i = inner.hosts.findIndex((h) => !outer.hosts.some((o) => hostPatternCovers(o, h)));
      return i < 0 ? COVERED : notCovered(`hosts[${i}]`, "not within the outer grant's hosts");
    },
    () => {
      const i = inner.allow_addresses.findIndex((a) => !outer.allow_addresses.includes(a));
      return i < 0 ? COVERED : notCovered(`allow_addresses[${i}]`, "not in the outer grant");
    },
  );
}

function matches(grant: MessageSendResource, request: MessageSendRequest): Decision {
  const where = `${request.scheme}://${request.host}:${request.port}`;
  if (!(grant.schemes as string[]).includes(request.scheme)) return deny("message.send", "scheme-not-allowed", `${where}: scheme ${request.scheme} is not granted`);
  if (!grant.hosts.some((p) => hostMatches(p, request.host))) return deny("message.send", "host-not-allowed", `${where}: host ${request.host} matches no granted webhook host`);
  const ports = grant.ports ?? grant.schemes.map((s) => DEFAULT_PORTS[s]!);
  if (!ports.includes(request.port)) return deny("message.send", "port-not-allowed", `${where}: port ${request.port} is not granted`);
  return ALLOW;
}

export const messageSend: CapabilityEntry<MessageSendResource, MessageSendRequest> = {
  name: "message.send",
  description: "Post a chat message (Slack, Teams or JSON) to an incoming webhook on a granted host.",
  resource: MessageSendResourceSchema,
  defaultRisk: "guarded",
  riskReason: "a posted message reaches people and cannot be taken back (DESIGN: writes Guarded)",
  covers,
  matches,
};
