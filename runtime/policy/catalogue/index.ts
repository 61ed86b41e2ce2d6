/**
 * The capability catalogue: every capability's resource schema, default risk, and the pure
 * `covers` (narrowing validation) and `matches` (one layer, one call) functions.
 */
export { CAPABILITY_CATALOGUE, CAPABILITY_NAMES, capabilityCovers, capabilityMatches, defaultRisks, isCapabilityName } from "./catalogue.js";
export type { CapabilityName, RequestOf, ResourceOf } from "./catalogue.js";
export { CapabilityGrantSchema, grantCovers, tightestScheduleLimit } from "./grant.js";
export type { CapabilityGrant } from "./grant.js";
export { effectiveRisk, maxRisk, riskAbove } from "./risk.js";
export type { RiskDecision, RiskInput, RiskOverride, RiskRule } from "./risk.js";
export type { CapabilityEntry, Coverage, Decision } from "./types.js";
export { globCovers, globMatches } from "./glob.js";
export { hostMatches, hostPatternCovers, hostPatternProblem, isOpenHostPattern } from "../../../host-proxies/http/host-pattern.js";
export { hostBelow, hostDirsOverlap, isCanonicalGuest, isCanonicalHost, mountsCover } from "./mounts.js";
export type { GrantMount } from "./mounts.js";
export { AgentNameSchema, AgentNameListSchema, NAME_MESSAGE, NAME_REGEX, patternList, unique } from "./names.js";
export { strictObject } from "./strict.js";
export { effectivePorts, HTTP_METHODS } from "./http.js";
export type { FsRequest, FsResource } from "./fs.js";
export type { HttpMethod, HttpRequest, HttpResource } from "./http.js";
export type { ShellRequest, ShellResource } from "./shell.js";
export type { CommandRule } from "../../../host-proxies/shell/argv.js";
export type { GmailRequest, GmailResource } from "./gmail.js";
export type { CalendarRequest, CalendarResource } from "./calendar.js";
export type { MailSendRequest, MailSendResource } from "./mail-send.js";
export type { MessageSendRequest, MessageSendResource } from "./message-send.js";
export type { KvRequest, KvResource } from "./kv.js";
export type { LogRequest, LogResource } from "./log.js";
export type { SpawnRequest, SpawnResource } from "./agent-spawn.js";
export type { MemoryRequest, MemoryResource } from "./memory.js";
export type { ScheduleRequest, ScheduleResource } from "./schedule.js";
