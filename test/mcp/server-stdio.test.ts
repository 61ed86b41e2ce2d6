/**
 * `clawhive mcp serve` over stdio, launched the way Claude Code or Claude Desktop launch a
 * server: the SDK's StdioClientTransport spawns the real binary, lists, calls, gets a denial,
 * approves a Guarded write by elicitation, and disconnects (the process exits 0). Nothing but
 * MCP reaches stdout (the SDK client would fail on any other line).
 */
import assert from "node:assert/strict";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { BIN, cliPlace, WRITER } from "../cli/fixtures.js";

function env(): Record<string, string> {
  const clean: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith("CLAWHIVE_")) clean[k] = v;
  if (process.env.CLAWHIVE_BUILD_CACHE) clean.CLAWHIVE_BUILD_CACHE = process.env.CLAWHIVE_BUILD_CACHE;
  return clean;
}

test("clawhive mcp serve: list, call, deny, approve by elicitation, disconnect", { timeout: 180_000 }, async () => {
  const place = await cliPlace("clawhive-mcp-stdio-");
  const work = join(place.data, "workspace");
  await mkdir(work, { recursive: true });
  await writeFile(join(work, "notes.md"), "hello from the workspace\n");
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, "mcp", "serve", "--agent", "writer", "--agents", place.agents, "--data-dir", place.data],
    env: env(),
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (d: Buffer) => (stderr += d.toString()));
  const client = new Client({ name: "stdio-test", version: "1.0.0" }, { capabilities: { elicitation: { form: {} } } });
  let asked = "";
  client.setRequestHandler(ElicitRequestSchema, (request) => {
    asked = request.params.message;
    return { action: "accept", content: { decision: "once" } };
  });
  await client.connect(transport);
  try {
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), ["files__edit_file", "files__glob", "files__grep", "files__list_dir", "files__read_file", "files__write_file"]);

    const read = await client.callTool({ name: "files__read_file", arguments: { path: "/workspace/notes.md" } });
    assert.equal(read.isError, undefined, JSON.stringify(read));
    assert.match(JSON.stringify(read.content), /hello from the workspace/);

    const denied = await client.callTool({ name: "files__read_file", arguments: { path: "/etc/passwd" } });
    assert.equal(denied.isError, true);
    assert.equal((denied.structuredContent as { error: { kind: string } }).error.kind, "denied");

    // Bidi overrides, zero-width and ANSI escapes in the arguments reach the person inert.
    const hostile = "# from MCP\n\u202egnp.exe\u200b\u001b[2J";
    const written = await client.callTool({ name: "files__write_file", arguments: { path: "/workspace/out.md", content: hostile } });
    assert.equal(written.isError, undefined, JSON.stringify(written));
    assert.equal(await readFile(join(work, "out.md"), "utf8"), hostile);
    assert.match(asked, /files\.write_file \(guarded\)/);
    assert.match(asked, /out\.md/);
    assert.doesNotMatch(asked, /[\u202e\u200b\u001b]/u, "shown inert");
    assert.match(asked, /\\u202e/);
  } finally {
    await client.close();
  }
  assert.doesNotMatch(stderr, /Error:|TypeError/, stderr);
});

test("clawhive mcp serve offers none of the tools the agent's grants can never satisfy; control: it offers the others", { timeout: 180_000 }, async () => {
  const place = await cliPlace("clawhive-mcp-stdio-reader-");
  await mkdir(join(place.data, "workspace"), { recursive: true });
  await writeFile(join(place.agents, "reader.yaml"), WRITER.replace("name: writer", "name: reader").replace(/  fs\.write:\n    mounts: \[[^\n]*\]\n/, ""));
  const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, "mcp", "serve", "--agent", "reader", "--agents", place.agents, "--data-dir", place.data], env: env(), stderr: "pipe" });
  const client = new Client({ name: "stdio-reader", version: "1.0.0" });
  await client.connect(transport);
  try {
    const { tools } = await client.listTools();
    // write_file needs fs.write only; edit_file also reads, so a call of it can still be allowed to read.
    assert.deepEqual(tools.map((t) => t.name).sort(), ["files__edit_file", "files__glob", "files__grep", "files__list_dir", "files__read_file"]);
    const hidden = await client.callTool({ name: "files__write_file", arguments: { path: "/workspace/x.md", content: "x" } });
    assert.equal(hidden.isError, true);
    assert.deepEqual((hidden.structuredContent as { error: { denial?: { capability: string; reason: string } } }).error.denial?.capability, "fs.write");
  } finally {
    await client.close();
  }
});

test("clawhive mcp serve refuses bad usage with a message and exit code 2", async () => {
  const place = await cliPlace("clawhive-mcp-usage-");
  const { spawnSync } = await import("node:child_process");
  for (const args of [["mcp"], ["mcp", "serve"], ["mcp", "serve", "--agent", "ghost", "--agents", place.agents], ["mcp", "nope"]]) {
    const result = spawnSync(process.execPath, [BIN, ...args, "--data-dir", place.data], { encoding: "utf8", env: env(), timeout: 300_000, input: "" });
    assert.notEqual(result.status, 0, `${args.join(" ")}: ${result.stderr}`);
    assert.match(result.stderr, /usage|--agent|no agent named ghost/, args.join(" "));
    assert.equal(result.stdout, "", "nothing but MCP ever reaches stdout");
  }
});
