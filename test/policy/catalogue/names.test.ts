/** The name-set capabilities: labels, calendar ids, kv namespace, memory scopes, agents, log. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { capabilityCovers, capabilityMatches } from "../../../runtime/policy/catalogue/index.js";
import type { CapabilityName, Coverage, Decision } from "../../../runtime/policy/catalogue/index.js";
import { resource } from "./_resource.js";

interface MatchRow {
  capability: CapabilityName;
  grant: unknown;
  request: unknown;
  reason: string | undefined;
}

const GMAIL = { labels: ["INBOX", "Work/*"] };
const MATCHES: MatchRow[] = [
  { capability: "gmail.read", grant: GMAIL, request: { label: "INBOX" }, reason: undefined },
  { capability: "gmail.read", grant: GMAIL, request: { label: "SPAM" }, reason: "label-not-granted" },
  { capability: "gmail.read", grant: GMAIL, request: { label: "inbox" }, reason: "label-not-granted" },
  { capability: "gmail.read", grant: GMAIL, request: { label: "Work/Projects" }, reason: undefined },
  { capability: "gmail.read", grant: GMAIL, request: { label: "Workshop" }, reason: "label-not-granted" },
  { capability: "calendar.read", grant: { calendars: ["primary"] }, request: { calendar: "primary" }, reason: undefined },
  { capability: "calendar.add", grant: { calendars: ["primary"] }, request: { calendar: "team@group.calendar.google.com" }, reason: "calendar-not-allowed" },
  { capability: "kv", grant: { namespace: "notes" }, request: { namespace: "notes" }, reason: undefined },
  { capability: "kv", grant: { namespace: "notes" }, request: { namespace: "notes/../secrets" }, reason: "namespace-not-allowed" },
  { capability: "memory", grant: { read: ["user", "project/*"], write: ["project/*"] }, request: { scope: "user", access: "read" }, reason: undefined },
  { capability: "memory", grant: { read: ["user", "project/*"], write: ["project/*"] }, request: { scope: "user", access: "write" }, reason: "scope-not-allowed" },
  { capability: "agent.spawn", grant: { agents: ["coder"] }, request: { agent: "coder" }, reason: undefined },
  { capability: "agent.spawn", grant: { agents: ["coder"] }, request: { agent: "coder2" }, reason: "agent-not-allowed" },
  { capability: "schedule", grant: { agents: ["assistant"], max_schedules: 2 }, request: { agent: "assistant", existing: 1 }, reason: undefined },
  { capability: "schedule", grant: { agents: ["assistant"], max_schedules: 2 }, request: { agent: "assistant", existing: 2 }, reason: "schedule-limit" },
  { capability: "schedule", grant: { agents: ["assistant"], max_schedules: 2 }, request: { agent: "coder", existing: 0 }, reason: "agent-not-allowed" },
  { capability: "log", grant: {}, request: {}, reason: undefined },
];

for (const row of MATCHES) {
  test(`${row.capability} matches ${JSON.stringify(row.request)} → ${row.reason ?? "allow"}`, () => {
    const decision: Decision = capabilityMatches(row.capability, resource(row.capability, row.grant) as never, row.request as never);
    if (row.reason === undefined) assert.deepEqual(decision, { allow: true });
    else {
      assert.equal(decision.allow ? "allow" : decision.denial.reason, row.reason);
      assert.equal(decision.allow ? "" : decision.denial.capability, row.capability);
    }
  });
}

interface CoverRow {
  capability: CapabilityName;
  outer: unknown;
  inner: unknown;
  failure: string | undefined;
}

const COVERS: CoverRow[] = [
  { capability: "gmail.read", outer: GMAIL, inner: { labels: ["INBOX"] }, failure: undefined },
  { capability: "gmail.read", outer: GMAIL, inner: { labels: ["INBOX", "SPAM"] }, failure: "labels[1]" },
  { capability: "gmail.read", outer: GMAIL, inner: { labels: ["Work/Projects/*"] }, failure: undefined },
  { capability: "gmail.read", outer: GMAIL, inner: { labels: ["Work*"] }, failure: "labels[0]" },
  { capability: "gmail.read", outer: { ...GMAIL, query: "newer_than:30d" }, inner: { labels: ["INBOX"] }, failure: undefined },
  { capability: "calendar.add", outer: { calendars: ["primary"] }, inner: { calendars: ["primary"] }, failure: undefined },
  { capability: "calendar.add", outer: { calendars: ["primary"] }, inner: { calendars: ["*"] }, failure: "calendars[0]" },
  { capability: "kv", outer: { namespace: "notes", quota_bytes: 1000 }, inner: { namespace: "notes", quota_bytes: 10 }, failure: undefined },
  { capability: "kv", outer: { namespace: "notes", quota_bytes: 1000 }, inner: { namespace: "notes", quota_bytes: 2000 }, failure: "quota_bytes" },
  { capability: "kv", outer: { namespace: "notes" }, inner: { namespace: "other" }, failure: "namespace" },
  { capability: "memory", outer: { read: ["*"], write: ["project/*"] }, inner: { read: ["user"], write: ["project/a"] }, failure: undefined },
  { capability: "memory", outer: { read: ["*"], write: ["project/*"] }, inner: { write: ["user"] }, failure: "write[0]" },
  { capability: "agent.spawn", outer: { agents: ["a", "b"] }, inner: { agents: ["b"] }, failure: undefined },
  { capability: "agent.spawn", outer: { agents: ["a", "b"] }, inner: { agents: ["c"] }, failure: "agents[0]" },
  { capability: "schedule", outer: { agents: ["a"], max_schedules: 5 }, inner: { agents: ["a"], max_schedules: 5 }, failure: undefined },
  { capability: "schedule", outer: { agents: ["a"], max_schedules: 5 }, inner: { agents: ["a"], max_schedules: 6 }, failure: "max_schedules" },
  { capability: "log", outer: { per_minute: 60 }, inner: { per_minute: 10 }, failure: undefined },
  { capability: "log", outer: { per_minute: 60 }, inner: { per_minute: 600 }, failure: "per_minute" },
];

for (const row of COVERS) {
  test(`${row.capability} covers ${JSON.stringify(row.inner)} within ${JSON.stringify(row.outer)} → ${row.failure ?? "covered"}`, () => {
    const result: Coverage = capabilityCovers(row.capability, resource(row.capability, row.outer) as never, resource(row.capability, row.inner) as never);
    if (row.failure === undefined) assert.deepEqual(result, { covered: true });
    else assert.equal(result.covered ? "covered" : result.path, row.failure);
  });
}
