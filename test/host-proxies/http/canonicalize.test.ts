import assert from "node:assert/strict";
import { test } from "node:test";
import { canonicalizeHttpRequest, MAX_URL_LENGTH } from "../../../host-proxies/http/index.js";
import type { RawHttpRequest } from "../../../host-proxies/http/index.js";
import { httpFetch } from "../../../runtime/policy/catalogue/http.js";
import { bytes, grant, throwsWith } from "./_fixtures.js";
import type { Expected } from "./_fixtures.js";

const raw = (url: string, extra: Partial<RawHttpRequest> = {}): RawHttpRequest => ({ method: "GET", url, headers: [], ...extra });

type UrlRow = [input: string, url: string, host: string, port: number];

const URL_ROWS: UrlRow[] = [
  ["http://127.1/", "http://127.0.0.1/", "127.0.0.1", 80],
  ["http://2130706433/", "http://127.0.0.1/", "127.0.0.1", 80],
  ["http://0x7f000001/", "http://127.0.0.1/", "127.0.0.1", 80],
  ["http://0x7f.1/", "http://127.0.0.1/", "127.0.0.1", 80],
  ["http://0177.0.0.1/", "http://127.0.0.1/", "127.0.0.1", 80],
  ["http://%31%32%37.0.0.1/", "http://127.0.0.1/", "127.0.0.1", 80],
  ["http://[::ffff:127.0.0.1]/", "http://[::ffff:7f00:1]/", "::ffff:7f00:1", 80],
  ["http://[0:0:0:0:0:0:0:1]:8080/", "http://[::1]:8080/", "::1", 8080],
  ["HTTPS://API.Example.COM/a?b=c#frag", "https://api.example.com/a?b=c", "api.example.com", 443],
  ["https://api.example.com.:443/", "https://api.example.com/", "api.example.com", 443],
  ["https://bücher.example/", "https://xn--bcher-kva.example/", "xn--bcher-kva.example", 443],
  ["http://api.example.com:8080/x", "http://api.example.com:8080/x", "api.example.com", 8080],
  // Backslash is a path separator for special schemes: the host is allowed.example, not 127.0.0.1.
  ["http://allowed.example\\@127.0.0.1/", "http://allowed.example/@127.0.0.1/", "allowed.example", 80],
];

test("canonicalizeHttpRequest: one spelling for every way of writing a URL", () => {
  for (const [input, url, host, port] of URL_ROWS) {
    const { canonical, request } = canonicalizeHttpRequest(raw(input));
    assert.equal(canonical.url, url, input);
    assert.deepEqual(request, { scheme: canonical.scheme, host, port, method: "GET" }, input);
    assert.equal(canonical.host, host);
  }
});

type DenyRow = [why: string, input: RawHttpRequest, expected: Expected, control: RawHttpRequest];

const DENY_ROWS: DenyRow[] = [
  ["userinfo hiding the real host", raw("http://allowed.example@127.0.0.1/"), { tag: "denied", reason: "userinfo-not-allowed", message: "127.0.0.1" }, raw("http://allowed.example/")],
  ["user and password", raw("https://user:pass@api.example.com/"), { tag: "denied", reason: "userinfo-not-allowed" }, raw("https://api.example.com/")],
  ["password only", raw("https://:pass@api.example.com/"), { tag: "denied", reason: "userinfo-not-allowed" }, raw("https://api.example.com/")],
  ["file scheme", raw("file:///etc/passwd"), { tag: "denied", reason: "scheme-not-allowed" }, raw("http://example.com/etc/passwd")],
  ["gopher scheme", raw("gopher://127.0.0.1:6379/_INFO"), { tag: "denied", reason: "scheme-not-allowed" }, raw("http://example.com/")],
  ["data URL", raw("data:text/plain,hi"), { tag: "denied", reason: "scheme-not-allowed" }, raw("http://example.com/")],
  ["ftp", raw("ftp://example.com/"), { tag: "denied", reason: "scheme-not-allowed" }, raw("https://example.com/")],
  ["relative URL", raw("/etc/passwd"), { tag: "invalid-input" }, raw("https://example.com/etc/passwd")],
  ["empty URL", raw(""), { tag: "invalid-input" }, raw("https://example.com")],
  ["port 0", raw("http://example.com:0/"), { tag: "invalid-input" }, raw("http://example.com:1/")],
  ["underscore in a name", raw("http://a_b.example/"), { tag: "invalid-input" }, raw("http://a-b.example/")],
  ["empty label", raw("http://a..example/"), { tag: "invalid-input" }, raw("http://a.example/")],
  ["URL too long", raw(`http://example.com/${"a".repeat(MAX_URL_LENGTH)}`), { tag: "invalid-input" }, raw(`http://example.com/${"a".repeat(100)}`)],
  ["CONNECT", raw("http://example.com/", { method: "CONNECT" }), { tag: "denied", reason: "method-not-allowed" }, raw("http://example.com/", { method: "get" })],
  ["TRACE", raw("http://example.com/", { method: "TRACE" }), { tag: "denied", reason: "method-not-allowed" }, raw("http://example.com/", { method: "OPTIONS" })],
  ["method with a space", raw("http://example.com/", { method: "GET /admin" }), { tag: "denied", reason: "method-not-allowed" }, raw("http://example.com/", { method: "GET" })],
  ["dotless-i method (Unicode case mapping)", raw("http://example.com/", { method: "delet\u0131" }), { tag: "denied", reason: "method-not-allowed" }, raw("http://example.com/", { method: "delete" })],
  ["body on GET", raw("http://example.com/", { body: bytes("x") }), { tag: "invalid-input" }, raw("http://example.com/", { method: "POST", body: bytes("x") })],
  ["zero timeout", raw("http://example.com/", { timeoutMs: 0 }), { tag: "invalid-input" }, raw("http://example.com/", { timeoutMs: 1 })],
  ["negative maxBytes", raw("http://example.com/", { maxBytes: -1n }), { tag: "invalid-input" }, raw("http://example.com/", { maxBytes: 0n })],
];

test("canonicalizeHttpRequest: refused URLs, methods and fields, each beside an accepted one", () => {
  for (const [why, input, expected, control] of DENY_ROWS) {
    throwsWith(() => canonicalizeHttpRequest(input), expected);
    assert.doesNotThrow(() => canonicalizeHttpRequest(control), `control of: ${why}`);
  }
});

const h = (name: string, value: string) => ({ name, value });
type HeaderRow = [why: string, header: { name: string; value: string }, expected: Expected, control: { name: string; value: string }];

const HEADER_ROWS: HeaderRow[] = [
  ["Host override", h("Host", "internal.example"), { tag: "denied", reason: "header-not-allowed" }, h("X-Host-Note", "internal.example")],
  ["HOST in capitals", h("HOST", "evil"), { tag: "denied", reason: "header-not-allowed" }, h("Accept", "*/*")],
  ["CRLF injection", h("X-Note", "a\r\nHost: evil"), { tag: "invalid-input" }, h("X-Note", "a Host: evil")],
  ["bare LF", h("X-Note", "a\nb"), { tag: "invalid-input" }, h("X-Note", "a b")],
  ["trailing CRLF", h("X-Note", "a\r\n"), { tag: "invalid-input" }, h("X-Note", "a ")],
  ["NUL", h("X-Note", "a\u0000b"), { tag: "invalid-input" }, h("X-Note", "ab")],
  ["beyond Latin-1", h("X-Note", "\u0100"), { tag: "invalid-input" }, h("X-Note", "\u00e9")],
  ["colon in a name", h("X-A:B", "1"), { tag: "invalid-input" }, h("X-A-B", "1")],
  ["space in a name", h("X A", "1"), { tag: "invalid-input" }, h("X-A", "1")],
  ["CRLF in a name", h("X-A\r\nHost", "1"), { tag: "invalid-input" }, h("X-A", "1")],
  ["empty name", h("", "1"), { tag: "invalid-input" }, h("a", "1")],
  ["Content-Length", h("Content-Length", "0"), { tag: "denied", reason: "header-not-allowed" }, h("Content-Type", "text/plain")],
  ["Transfer-Encoding", h("Transfer-Encoding", "chunked"), { tag: "denied", reason: "header-not-allowed" }, h("Accept-Language", "en")],
  ["Connection", h("Connection", "close, X-Secret"), { tag: "denied", reason: "header-not-allowed" }, h("Cache-Control", "no-cache")],
  ["TE", h("TE", "trailers"), { tag: "denied", reason: "header-not-allowed" }, h("Accept", "text/html")],
  ["Upgrade", h("Upgrade", "websocket"), { tag: "denied", reason: "header-not-allowed" }, h("Accept", "text/html")],
  ["Proxy-Authorization", h("Proxy-Authorization", "Basic eA=="), { tag: "denied", reason: "header-not-allowed" }, h("Authorization", "Basic eA==")],
  ["X-Forwarded-For", h("X-Forwarded-For", "127.0.0.1"), { tag: "denied", reason: "header-not-allowed" }, h("X-Request-Id", "127.0.0.1")],
  ["X-Forwarded-Host", h("X-Forwarded-Host", "internal"), { tag: "denied", reason: "header-not-allowed" }, h("X-Request-Id", "1")],
  ["Forwarded", h("Forwarded", "for=127.0.0.1"), { tag: "denied", reason: "header-not-allowed" }, h("User-Agent", "agent")],
  ["X-Original-URL", h("X-Original-URL", "/admin"), { tag: "denied", reason: "header-not-allowed" }, h("Referer", "https://example.com/")],
  ["method override", h("X-HTTP-Method-Override", "DELETE"), { tag: "denied", reason: "header-not-allowed" }, h("If-None-Match", "*")],
  ["Accept-Encoding", h("Accept-Encoding", "zstd"), { tag: "denied", reason: "header-not-allowed" }, h("Accept", "application/json")],
];

test("canonicalizeHttpRequest: header tricks refused, each beside an accepted header", () => {
  for (const [why, header, expected, control] of HEADER_ROWS) {
    throwsWith(() => canonicalizeHttpRequest(raw("https://api.example.com/", { headers: [header] })), expected);
    const { canonical } = canonicalizeHttpRequest(raw("https://api.example.com/", { headers: [control] }));
    assert.equal(canonical.headers[0]?.name, control.name.toLowerCase(), `control of: ${why}`);
  }
});

test("canonicalizeHttpRequest: values trimmed, names lowercased, cookies and the plugin's own authorization kept", () => {
  const { canonical } = canonicalizeHttpRequest(raw("https://a.example/", { headers: [h("Cookie", " a=1 "), h("Authorization", "Basic eA=="), h("X-Tab", "\tv\t")] }));
  assert.deepEqual(canonical.headers, [h("cookie", "a=1"), h("authorization", "Basic eA=="), h("x-tab", "v")]);
});

test("canonicalizeHttpRequest: a header a grant credential sets for this host is refused; for another host it is the plugin's", () => {
  const credentials = grant({ credentials: [{ host: "api.example.com", secret: "tok", header: "x-api-key", scheme: "Bearer" }] }).credentials;
  throwsWith(() => canonicalizeHttpRequest(raw("https://api.example.com/", { headers: [h("X-Api-Key", "mine")] }), { credentials }), { tag: "denied", reason: "header-not-allowed" });
  assert.doesNotThrow(() => canonicalizeHttpRequest(raw("https://other.example.com/", { headers: [h("X-Api-Key", "mine")] }), { credentials }));
});

test("canonicalizeHttpRequest: maxBytes as jco's bigint, clamped to a safe integer", () => {
  assert.equal(canonicalizeHttpRequest(raw("http://e.example/", { maxBytes: 10n })).canonical.maxBytes, 10);
  assert.equal(canonicalizeHttpRequest(raw("http://e.example/", { maxBytes: (1n << 64n) - 1n })).canonical.maxBytes, Number.MAX_SAFE_INTEGER);
  assert.equal(canonicalizeHttpRequest(raw("http://e.example/")).canonical.followRedirects, true);
});

test("the policy's matcher decides on the canonical request: spelling tricks cannot dodge a host pattern", () => {
  const g = grant({ schemes: ["https"], hosts: ["api.example.com", "*.cdn.example"] });
  const decide = (url: string) => httpFetch.matches(g, canonicalizeHttpRequest(raw(url)).request).allow;
  const rows: [string, boolean][] = [
    ["https://API.EXAMPLE.COM./v1", true],
    ["https://api.example.com:443/v1", true],
    ["https://img.cdn.example/x.png", true],
    ["https://api.example.com.evil.org/", false],
    ["https://evil-api.example.com/", false],
    ["https://api.example.com:8443/", false],
    ["http://api.example.com/", false],
    ["https://cdn.example/", false],
    ["https://api.example.com\\@evil.org/", true],
  ];
  for (const [url, allowed] of rows) assert.equal(decide(url), allowed, url);
});
