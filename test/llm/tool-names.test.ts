import assert from "node:assert/strict";
import { test } from "node:test";
import { LlmError, ToolNameMap, fromWireToolName, toWireToolName } from "../../runtime/llm/index.js";

const WIRE = /^[a-zA-Z0-9_-]{1,64}$/;

test("runtime tool names map to wire names and back", () => {
  const rows: Array<[name: string, wire: string]> = [
    ["files.read_file", "files__read_file"],
    ["web-search.fetch", "web-search__fetch"],
    ["kv.get", "kv__get"],
    ["mail.list__messages", "mail__list__messages"],
    ["finish", "finish"],
    ["GetWeatherArgs", "GetWeatherArgs"],
  ];
  const map = new ToolNameMap(rows.map(([n]) => n));
  for (const [name, wire] of rows) {
    assert.equal(toWireToolName(name), wire, name);
    assert.equal(map.toWire(name), wire, name);
    assert.equal(map.fromWire(wire), name, name);
  }
});

test("names too long or with other characters get a hashed wire name that only the table reverses", () => {
  const long = `${"p".repeat(40)}.${"t".repeat(40)}`;
  const odd = "my tool/with spaces";
  const map = new ToolNameMap([long, odd]);
  for (const name of [long, odd]) {
    const wire = map.toWire(name);
    assert.match(wire, WIRE);
    assert.match(wire, /_[0-9a-f]{8}$/);
    assert.equal(map.fromWire(wire), name);
  }
  assert.equal(toWireToolName(long), toWireToolName(long), "deterministic");
  assert.notEqual(toWireToolName(`${"p".repeat(40)}.${"t".repeat(39)}u`), toWireToolName(long));
});

test("a wire name no table knows falls back to the __ rule", () => {
  assert.equal(fromWireToolName("files__write_file"), "files.write_file");
  assert.equal(fromWireToolName("made_up"), "made_up");
  assert.equal(new ToolNameMap([]).fromWire("shell__run"), "shell.run");
});

test("two names that would share a wire name are refused", () => {
  assert.throws(() => new ToolNameMap(["files.read", "files__read"]), (e: unknown) => e instanceof LlmError && e.code === "llm_config" && /files\.read and files__read/.test(e.message));
});
