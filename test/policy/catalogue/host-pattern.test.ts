import assert from "node:assert/strict";
import { test } from "node:test";
import { capabilityMatches, hostMatches, hostPatternCovers, hostPatternProblem, isOpenHostPattern } from "../../../runtime/policy/catalogue/index.js";
import { resource } from "./_resource.js";

// [pattern, host, matches]: look-alikes first, each beside a control that matches.
const MATCHES: [string, string, boolean][] = [
  ["*.example.com", "evil-example.com", false],
  ["*.example.com", "a.example.com", true],
  ["*.example.com", "example.com.evil.org", false],
  ["*.example.com", "deep.a.example.com", true],
  ["*.example.com", "example.com", false],
  ["*.example.com", "xexample.com", false],
  ["api.example.com", "api.example.com.evil.org", false],
  ["api.example.com", "api.example.com", true],
  ["api.example.com", "evilapi.example.com", false],
  ["api.example.com", "x.api.example.com", false],
  ["*.example.com", "1.2.3.4", false],
  ["1.2.3.4", "1.2.3.4", true],
  ["*", "anything.example", true],
];

for (const [pattern, host, expected] of MATCHES) {
  test(`hostMatches(${pattern}, ${host}) is ${expected}`, () => {
    assert.equal(hostMatches(pattern, host), expected);
  });
}

const COVERS: [string, string, boolean][] = [
  ["*.example.com", "api.example.com", true],
  ["*.example.com", "evil-example.com", false],
  ["*.example.com", "*.api.example.com", true],
  ["*.example.com", "*.evil-example.com", false],
  ["*.example.com", "*.example.com", true],
  ["*.example.com", "example.com", false],
  ["*.example.com", "*", false],
  ["*", "*", true],
  ["api.example.com", "api.example.com", true],
  ["api.example.com", "*.api.example.com", false],
];

for (const [outer, inner, expected] of COVERS) {
  test(`hostPatternCovers(${outer}, ${inner}) is ${expected}`, () => {
    assert.equal(hostPatternCovers(outer, inner), expected);
  });
}

const PROBLEMS: [string, RegExp | undefined][] = [
  ["api.example.com", undefined],
  ["*.example.com", undefined],
  ["*", undefined],
  ["localhost", undefined],
  ["xn--bcher-kva.example", undefined],
  ["::1", undefined],
  ["10.0.0.5", undefined],
  ["api.*.example.com", /whole leading label/],
  ["api-*.example.com", /whole leading label/],
  ["example.*", /whole leading label/],
  ["**.example.com", /whole leading label/],
  ["Example.com", /lowercase/],
  ["bücher.example", /A-label/],
  ["example.com.", /trailing dot/],
  ["example.com:443", /ports go in/],
  ["[::1]", /without brackets/],
  ["0x7f.1", /DNS name/],
  ["127.1", /DNS name/],
  ["-bad.example.com", /DNS name/],
  ["a..b", /DNS name/],
  ["", /DNS name/],
];

for (const [pattern, problem] of PROBLEMS) {
  test(`hostPatternProblem(${JSON.stringify(pattern)}) ${problem === undefined ? "accepts" : `refuses: ${problem.source}`}`, () => {
    const found = hostPatternProblem(pattern);
    if (problem === undefined) assert.equal(found, undefined);
    else assert.match(found ?? "(accepted)", problem);
  });
}

test("isOpenHostPattern: * and a wildcard over one label are open; control: a wildcard over a registered domain is not", () => {
  assert.deepEqual(["*", "*.com", "*.io"].map(isOpenHostPattern), [true, true, true]);
  assert.deepEqual(["*.example.com", "example.com", "*.co.uk"].map(isOpenHostPattern), [false, false, false]);
});

const GRANT = resource("http.fetch", { hosts: ["api.example.com", "*.cdn.example.com"], methods: ["GET", "POST"] });

// [what, request, reason or undefined for allowed]
const REQUESTS: [string, { scheme: string; host: string; port: number; method: string }, string | undefined][] = [
  ["allowed host, default port", { scheme: "https", host: "api.example.com", port: 443, method: "POST" }, undefined],
  ["plain http is not granted by default", { scheme: "http", host: "api.example.com", port: 80, method: "GET" }, "scheme-not-allowed"],
  ["look-alike host", { scheme: "https", host: "api.example.com.evil.org", port: 443, method: "GET" }, "host-not-allowed"],
  ["wildcard subdomain", { scheme: "https", host: "img.cdn.example.com", port: 443, method: "GET" }, undefined],
  ["non-default port", { scheme: "https", host: "api.example.com", port: 8443, method: "GET" }, "port-not-allowed"],
  ["method not granted", { scheme: "https", host: "api.example.com", port: 443, method: "DELETE" }, "method-not-allowed"],
];

for (const [what, request, reason] of REQUESTS) {
  test(`http.fetch matches: ${what} → ${reason ?? "allow"}`, () => {
    const decision = capabilityMatches("http.fetch", GRANT, request);
    if (reason === undefined) assert.deepEqual(decision, { allow: true });
    else assert.equal(decision.allow ? "allow" : decision.denial.reason, reason);
  });
}

test("http.fetch resource defaults: https only, GET and HEAD, ports 443 (deny by default fills in the narrowest)", () => {
  const r = resource("http.fetch", { hosts: ["example.com"] });
  assert.deepEqual([r.schemes, r.methods, r.ports, r.allow_addresses], [["https"], ["GET", "HEAD"], undefined, []]);
});
