import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { nameSkeleton, similarNames } from "../../../runtime/plugins/install/index.js";
import { parsePluginManifest } from "../../../runtime/plugins/manifest.js";

// Names a person skimming an agent's plugin list or an approval would read as the same name.
const confusable: Array<[string, string, string]> = [
  ["xevi12", "xevil2", "1 and i read as l"],
  ["files", "fi1es", "1 for l"],
  ["files", "fiies", "i for l"],
  ["mail", "rnail", "rn for m"],
  ["mail", "nnail", "nn for m"],
  ["web", "vveb", "vv for w"],
  ["docs", "clocs", "cl for d"],
  ["foo", "f00", "0 for o"],
  ["shell", "she11", "1 for l, twice"],
  ["sms", "5ms", "5 for s"],
  ["my-tool", "mytool", "a separator dropped"],
  ["my-tool", "my--tool", "a separator doubled"],
  ["my-tool", "my_tool", "another separator"],
  ["files", "FILES", "case"],
  ["files", "ｆｉｌｅｓ", "fullwidth letters (NFKC)"],
];

// Controls: names that differ in a way a reader sees.
const distinct: Array<[string, string]> = [
  ["files", "fires"],
  ["mail", "main"],
  ["web", "wed"],
  ["shell", "spell"],
  ["calendar", "calendars"],
  ["kv", "kw"],
  ["memory", "mem0ry-extra"],
  ["rn", "rm"],
];

describe("lookalike plugin names (a UTS #39 style skeleton)", () => {
  for (const [a, b, why] of confusable) {
    it(`${a} and ${b} are confusable (${why})`, () => {
      assert.equal(nameSkeleton(a), nameSkeleton(b));
      assert.deepEqual(similarNames(b, ["other", a]), a.toLowerCase() === b.toLowerCase() ? [] : [a]);
    });
  }
  for (const [a, b] of distinct) {
    it(`control: ${a} and ${b} are not`, () => {
      assert.notEqual(nameSkeleton(a), nameSkeleton(b));
      assert.deepEqual(similarNames(b, [a]), []);
    });
  }
  it("a name is not similar to itself (an install of the same name is the name clash check's business)", () => {
    assert.deepEqual(similarNames("files", ["files", "Files"]), []);
  });

  // Case and Unicode homoglyphs never reach the skeleton: a manifest name is lowercase ASCII.
  const manifest = (name: string) => JSON.stringify({ name, version: "1.0.0", description: "d", publisher: "p", capabilities: [], tools: {} });
  const refusedNames: Array<[string, string]> = [
    ["Files", "upper case"],
    ["fіles", "a Cyrillic і"],
    ["fileѕ", "a Cyrillic ѕ"],
    ["my_tool", "an underscore"],
    ["ｆｉｌｅｓ", "fullwidth letters"],
  ];
  for (const [name, why] of refusedNames) {
    it(`the manifest refuses ${why} in a name`, () => {
      assert.throws(() => parsePluginManifest(manifest(name), "plugin.json"), { code: "invalid_input", field: "name" });
    });
  }
  it("control: the manifest takes a lowercase ASCII name", () => {
    assert.equal(parsePluginManifest(manifest("files-2"), "plugin.json").name, "files-2");
  });
});
