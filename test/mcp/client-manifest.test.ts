/**
 * `mcp_servers` in agent manifests: each mistake is refused with the field named, mount and
 * read-only hosts pass the forbidden-roots check, and a valid entry loads (the control).
 */
import assert from "node:assert/strict";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { stringify } from "yaml";
import { parseAgentManifest } from "../../runtime/agents/index.js";
import { runtimeMountGuard } from "../../runtime/runs/mount-guard.js";
import { NODE_MODULES } from "./client-fixtures.js";

const base = await mkdtemp(join(tmpdir(), "clawhive-mcp-manifest-"));
const ws = await mkdtemp(join(tmpdir(), "clawhive-mcp-ws-"));
const program = join(ws, "server.mjs");
await writeFile(program, "");
const guard = runtimeMountGuard({ dataDir: base, buildCacheDir: join(base, "build") });

function parse(servers: unknown, extra: Record<string, unknown> = {}) {
  const manifest = { name: "m", description: "d", model: { provider: "anthropic", id: "x" }, system_prompt: "p", mcp_servers: servers, ...extra };
  return parseAgentManifest(stringify(manifest), { file: "m.yaml", baseDir: base, hostGuard: guard });
}

test("mcp_servers: refusals name the field; a valid entry loads", () => {
  const ok = { command: "node", args: ["/srv/server.js"], read_only: [NODE_MODULES], mounts: [{ guest: "/data", host: ws, mode: "rw" }] };
  assert.equal(parse({ files: ok }).manifest.mcp_servers.files?.mounts?.[0]?.host, ws, "control: loads, hosts canonical");
  const web = { "http.fetch": { hosts: ["mcp.example.com"], methods: ["POST"] } };
  assert.ok(parse({ web: { url: "https://mcp.example.com/mcp" } }, { grants: web }), "control: an HTTP server its grant allows");
  const env = parse({ files: { ...ok, env: { LOG_LEVEL: "debug", EMPTY: "", API_TOKEN: { secret: "files-token" } } } }).manifest.mcp_servers.files?.env;
  assert.deepEqual(env, { LOG_LEVEL: "debug", EMPTY: "", API_TOKEN: { secret: "files-token" } }, "control: plain values beside secret references");
  const cases: Array<[string, unknown, string, RegExp, Record<string, unknown>?]> = [
    ["neither command nor url", { x: { args: [] } }, "mcp_servers.x", /exactly one of command/],
    ["both", { x: { command: "node", url: "https://a.example/" } }, "mcp_servers.x", /exactly one of command/],
    ["a relative command", { x: { command: "server" } }, "mcp_servers.x.command", /absolute path/],
    ["a bad server name", { "X!": { command: "node" } }, "mcp_servers.X!", /server name/],
    ["an unknown field", { x: { command: "node", shell: true } }, "mcp_servers.x.shell", /.+/],
    ["network hosts for a stdio server", { x: { command: "node", hosts: ["a.example"] } }, "mcp_servers.x.hosts", /gets no network/],
    ["an env value with NUL", { x: { command: "node", env: { MODE: "a\0b" } } }, "mcp_servers.x.env.MODE", /NUL/],
    ["an env value too long", { x: { command: "node", env: { MODE: "x".repeat(8193) } } }, "mcp_servers.x.env.MODE", /at most 8192/],
    ["an env value neither plain nor a secret", { x: { command: "node", env: { MODE: 3 } } }, "mcp_servers.x.env.MODE", /plain value .* or \{secret: name\}/],
    ["an env secret with a bad name", { x: { command: "node", env: { TOKEN: { secret: "Bad Name" } } } }, "mcp_servers.x.env.TOKEN.secret", /name of a stored secret/],
    ["an env name in lower case", { x: { command: "node", env: { token: "abc" } } }, "mcp_servers.x.env.token", /environment variable name/],
    ["an env name with a dash", { x: { command: "node", env: { "MY-VAR": "abc" } } }, "mcp_servers.x.env.MY-VAR", /environment variable name/],
    ["a reserved env name", { x: { command: "node", env: { LD_PRELOAD: { secret: "s" } } } }, "mcp_servers.x.env.LD_PRELOAD", /set by the sandbox|load another/],
    ["a mount of /etc", { x: { ...ok, mounts: [{ guest: "/data", host: "/etc" }] } }, "mcp_servers.x.mounts[0].host", /refused/],
    ["a mount of the data dir", { x: { ...ok, mounts: [{ guest: "/data", host: base }] } }, "mcp_servers.x.mounts[0].host", /refused/],
    ["a guest mount over /usr", { x: { ...ok, mounts: [{ guest: "/usr/lib", host: ws }] } }, "mcp_servers.x.mounts[0].guest", /overlaps \/usr/],
    ["read_only of the home's dot-folders", { x: { ...ok, read_only: ["/root/.ssh"] } }, "mcp_servers.x.read_only[0]", /refused/],
    ["read_only of /proc", { x: { ...ok, read_only: ["/proc/self"] } }, "mcp_servers.x.read_only[0]", /refused/],
    ["read_only inside a guest mount", { x: { ...ok, mounts: [{ guest: "/srv", host: ws }], read_only: [join("/srv", "pkg")] } }, "mcp_servers.x.read_only[0]", /overlaps the guest mount/],
    ["a url the grant lacks", { x: { url: "https://evil.example/mcp" } }, "mcp_servers.x.url", /not in grants\.http\.fetch\.hosts/, { grants: web }],
    ["a url without any http grant", { x: { url: "https://mcp.example.com/mcp" } }, "mcp_servers.x.url", /needs grants\.http\.fetch/],
    ["credentials in the url", { x: { url: "https://u:p@mcp.example.com/mcp" } }, "mcp_servers.x.url", /credentials in the URL/, { grants: web }],
    ["a stdio field on an HTTP server", { x: { url: "https://mcp.example.com/mcp", mounts: [] } }, "mcp_servers.x.mounts", /only a stdio server/, { grants: web }],
    ["a server named like a plugin", { files: ok }, "mcp_servers.files", /also a plugin/, { plugins: [{ name: "files", version: "*" }] }],
    ["a risk override on a tool outside the subset", { x: { ...ok, tools: ["read"] } }, "approvals.raise_risk[0].tool", /not in mcp_servers\.x\.tools/, { approvals: { raise_risk: [{ tool: "x.write", to: "unsafe" }] } }],
  ];
  for (const [what, servers, field, message, extra] of cases) {
    assert.throws(() => parse(servers, extra), (e: Error & { field?: string }) => {
      assert.equal(e.field, field, `${what}: ${e.message}`);
      assert.match(e.message, message, what);
      return true;
    }, what);
  }
});
