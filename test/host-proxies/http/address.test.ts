import assert from "node:assert/strict";
import { test } from "node:test";
import { classifyAddress, pinAddresses, vetAddress } from "../../../host-proxies/http/index.js";
import type { AddressKind } from "../../../host-proxies/http/index.js";
import { HTTP_DENIAL_REASONS } from "../../../host-proxies/http/index.js";
import { rejectsWith, resolverOf, throwsWith } from "./_fixtures.js";

type Row = [address: string, kind: AddressKind, embeddedIpv4?: string];

// Each refused class, and beside it (marked `public`) the nearest address outside the range.
const ROWS: Row[] = [
  ["0.0.0.0", "unspecified"],
  ["0.255.255.255", "unspecified"],
  ["1.0.0.1", "public"],
  ["10.0.0.1", "private"],
  ["11.0.0.1", "public"],
  ["100.64.0.1", "cgnat"],
  ["100.127.255.255", "cgnat"],
  ["100.128.0.1", "public"],
  ["127.0.0.1", "loopback"],
  ["127.255.255.254", "loopback"],
  ["128.0.0.1", "public"],
  ["169.254.169.254", "link-local"],
  ["169.255.0.1", "public"],
  ["172.16.0.1", "private"],
  ["172.31.255.255", "private"],
  ["172.32.0.1", "public"],
  ["192.0.0.170", "reserved"],
  ["192.0.2.1", "documentation"],
  ["192.0.3.1", "public"],
  ["192.88.99.1", "reserved"],
  ["192.168.1.1", "private"],
  ["192.169.0.1", "public"],
  ["198.18.0.1", "benchmark"],
  ["198.19.255.255", "benchmark"],
  ["198.20.0.1", "public"],
  ["198.51.100.7", "documentation"],
  ["203.0.113.7", "documentation"],
  ["224.0.0.1", "multicast"],
  ["239.255.255.250", "multicast"],
  ["240.0.0.1", "reserved"],
  ["255.255.255.255", "broadcast"],
  ["8.8.8.8", "public"],
  ["::", "unspecified"],
  ["::1", "loopback"],
  ["::ffff:127.0.0.1", "loopback", "127.0.0.1"],
  ["::ffff:7f00:1", "loopback", "127.0.0.1"],
  ["::ffff:a9fe:a9fe", "link-local", "169.254.169.254"],
  ["::ffff:8.8.8.8", "public", "8.8.8.8"],
  ["::127.0.0.1", "loopback", "127.0.0.1"],
  ["::8.8.8.8", "reserved", "8.8.8.8"],
  ["64:ff9b::7f00:1", "loopback", "127.0.0.1"],
  ["64:ff9b::10.0.0.1", "private", "10.0.0.1"],
  ["64:ff9b::808:808", "public", "8.8.8.8"],
  ["64:ff9b:1::1", "private"],
  ["64:ff9b:1:ffff::808:808", "private"],
  ["2002:7f00:1::", "loopback", "127.0.0.1"],
  ["2002:c0a8:101::1", "private", "192.168.1.1"],
  ["2002:808:808::1", "public", "8.8.8.8"],
  ["2001:0:4136:e378:8000:63bf:3fff:fdd2", "reserved"],
  ["2001:2::1", "benchmark"],
  ["2001:db8::1", "documentation"],
  ["3fff::1", "documentation"],
  ["100::1", "reserved"],
  ["fc00::1", "unique-local"],
  ["fd12:3456::1", "unique-local"],
  ["fe80::1", "link-local"],
  ["fe80::1%eth0", "link-local"],
  ["febf::1", "link-local"],
  ["fec0::1", "private"],
  ["ff02::1", "multicast"],
  ["4000::1", "reserved"],
  ["::ffff:0:7f00:1", "reserved"],
  ["2001:4860:4860::8888", "public"],
  ["2606:4700:4700::1111", "public"],
];

test("classifyAddress: every special range, each beside the nearest public address", () => {
  for (const [address, kind, embedded] of ROWS) {
    const c = classifyAddress(address);
    assert.ok(c !== undefined, address);
    assert.equal(c.kind, kind, address);
    assert.equal(c.embeddedIpv4, embedded, `embedded in ${address}`);
    assert.equal(c.range === undefined, kind === "public", `range of ${address}: ${c.range}`);
  }
});

test("classifyAddress: canonical spelling is the one URL prints (and allow_addresses uses)", () => {
  const rows: [string, string][] = [
    ["::FFFF:127.0.0.1", "::ffff:7f00:1"],
    ["0:0:0:0:0:0:0:1", "::1"],
    ["[::1]", "::1"],
    ["2001:DB8:0:0:0:0:0:1", "2001:db8::1"],
    ["fe80::1%eth0", "fe80::1"],
    ["127.0.0.1", "127.0.0.1"],
  ];
  for (const [input, canonical] of rows) assert.equal(classifyAddress(input)?.address, canonical, input);
});

test("classifyAddress: not an IP literal → undefined (non-canonical IPv4 is not an address here)", () => {
  for (const s of ["", "localhost", "127.1", "0x7f000001", "2130706433", "0177.0.0.1", "1.2.3.4.5", "::g", "example.com"]) {
    assert.equal(classifyAddress(s), undefined, s);
  }
});

test("vetAddress: non-public refused unless listed exactly; the listed one passes (control)", () => {
  for (const [address, kind] of ROWS) {
    const c = classifyAddress(address);
    assert.ok(c);
    if (kind === "public") {
      vetAddress(c, { host: address, allowAddresses: [] });
      continue;
    }
    throwsWith(() => vetAddress(c, { host: address, allowAddresses: [] }), { tag: "denied", reason: HTTP_DENIAL_REASONS.addressNotAllowed });
    vetAddress(c, { host: address, allowAddresses: [c.address] });
  }
});

test("vetAddress: an allowance names one spelling of one address, not what it embeds", () => {
  const mapped = classifyAddress("::ffff:127.0.0.1");
  assert.ok(mapped);
  throwsWith(() => vetAddress(mapped, { host: "x", allowAddresses: ["127.0.0.1"] }), { tag: "denied", reason: "address-not-allowed" });
  vetAddress(mapped, { host: "x", allowAddresses: ["::ffff:7f00:1"] });
  const other = classifyAddress("127.0.0.2");
  assert.ok(other);
  throwsWith(() => vetAddress(other, { host: "x", allowAddresses: ["127.0.0.1"] }), { tag: "denied", reason: "address-not-allowed" });
});

test("pinAddresses: every resolved address is vetted; a mixed answer is a rebinding tell", async () => {
  const { resolver } = resolverOf({ mixed: ["93.184.215.14", "127.0.0.1"], pub: ["93.184.215.14"], loop: ["127.0.0.1"], mapped: ["::ffff:127.0.0.1"] });
  const err = await rejectsWith(pinAddresses("mixed", { resolver, allowAddresses: [] }), { tag: "denied", reason: "address-not-allowed" });
  assert.match(err.message, /rebinding/);
  // Controls: the public answer alone; and the mixed answer once its private address is granted.
  assert.deepEqual((await pinAddresses("pub", { resolver, allowAddresses: [] })).addresses.map((a) => a.address), ["93.184.215.14"]);
  const granted = await pinAddresses("mixed", { resolver, allowAddresses: ["127.0.0.1"] });
  assert.deepEqual(granted.addresses.map((a) => a.address), ["93.184.215.14", "127.0.0.1"]);
  await rejectsWith(pinAddresses("loop", { resolver, allowAddresses: [] }), { tag: "denied", reason: "address-not-allowed" });
  await rejectsWith(pinAddresses("mapped", { resolver, allowAddresses: ["127.0.0.1"] }), { tag: "denied", reason: "address-not-allowed" });
  // The resolver's spelling is canonicalised before the allowance is compared.
  assert.equal((await pinAddresses("mapped", { resolver, allowAddresses: ["::ffff:7f00:1"] })).addresses[0]?.address, "::ffff:7f00:1");
});

test("pinAddresses: unknown names, empty and junk answers", async () => {
  const junk = { resolver: async () => [{ address: "not-an-ip", family: 4 as const }], allowAddresses: [] };
  await rejectsWith(pinAddresses("x.test", junk), { tag: "io" });
  await rejectsWith(pinAddresses("x.test", { resolver: async () => [], allowAddresses: [] }), { tag: "not-found" });
  await rejectsWith(pinAddresses("nowhere.test", { resolver: resolverOf({}).resolver, allowAddresses: [] }), { tag: "not-found" });
  const literal = await pinAddresses("8.8.8.8", { resolver: resolverOf({}).resolver, allowAddresses: [] });
  assert.equal(literal.literal, true);
});
