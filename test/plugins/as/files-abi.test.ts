/**
 * The AssemblyScript files plugin against `clawhive:host/fs` and `clawhive:plugin/tools`, byte for
 * byte through jco's glue: its descriptors exactly what the TypeScript plugin described
 * (files-describe.json, dumped from it before the port), the bulk calls' options lowered field by
 * field (none where the tool sets none), and memory flat over a long session's calls.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { PROJECT_ROOT } from "../../../runtime/plugins/locations.js";
import { loadComponent } from "./component.js";

const FILES_PLUGIN = join(PROJECT_ROOT, "plugins", "files");

interface Recorded {
  calls: unknown[][];
}

const SKIPS = { sensitive: 1, symlink: 2, hardLink: 3, special: 4, tooLarge: 5, binary: 6, unaddressable: 7, unreadable: 8, excluded: 9, tooDeep: 10 };

async function filesPlugin(files: Record<string, string> = {}) {
  const host: Recorded = { calls: [] };
  const loaded = await loadComponent(FILES_PLUGIN, {
    "clawhive:host/fs": {
      mounts: () => [{ guest: "/work/", mode: "rw" }, { guest: "/ref", mode: "ro" }],
      read: (path: string) => {
        host.calls.push(["read", path]);
        const text = files[path];
        if (text === undefined) throw { tag: "not-found", val: `${path}: no such file` };
        return new TextEncoder().encode(text);
      },
      write: (path: string, data: Uint8Array) => {
        host.calls.push(["write", path, new TextDecoder().decode(data)]);
        files[path] = new TextDecoder().decode(data);
      },
      listDir: (path: string) => (host.calls.push(["listDir", path]), [{ name: "b", kind: "directory", size: 4096n }, { name: "a", kind: "symlink", size: 0n }]),
      stat: () => assert.fail("stat is not used"),
      mkdir: (path: string) => void host.calls.push(["mkdir", path]),
      remove: () => assert.fail("remove is not used"),
      walk: (path: string, options: unknown) => {
        host.calls.push(["walk", path, options]);
        return {
          entries: [{ path: "/work/src/a.ts", kind: "file", size: 3n }, { path: "/work/src/é/b.ts", kind: "file", size: 2n ** 40n }],
          truncated: true, stopped: "max-results", entriesScanned: 12, skipped: SKIPS, unreadable: ["/work/src/x: EACCES"],
        };
      },
      search: (path: string, options: unknown) => {
        host.calls.push(["search", path, options]);
        return {
          matches: [{ path: "/work/a.txt", line: 4_000_000_000, text: "a \"quoted\" line\t😀", before: ["b1", "b2"], after: [] }],
          truncated: false, stopped: "max-output", entriesScanned: 3, filesScanned: 2, filesMatched: 1, bytesRead: 2n ** 53n, skipped: SKIPS, unreadable: [],
        };
      },
    },
    "clawhive:host/log": { write: () => {} },
  });
  return { ...loaded, host, files };
}

test("describe: names, descriptions, schemas, capabilities and risks exactly as the TypeScript plugin gave them", async () => {
  const plugin = await filesPlugin();
  const expected = JSON.parse(readFileSync(join(PROJECT_ROOT, "test/plugins/as/files-describe.json"), "utf8")) as unknown[];
  assert.deepEqual(plugin.tools.describe(), expected);
  assert.deepEqual(plugin.tools.describe(), expected);
  assert.ok(plugin.bytes < 512 * 1024, `component of ${plugin.bytes} bytes`);
});

test("fs.walk: every option lowered as glob sets it, unset ones none; every result field lifted", async () => {
  const plugin = await filesPlugin();
  const out = JSON.parse(plugin.tools.call("glob", JSON.stringify({ pattern: "src/*.ts", exclude: ["*.d.ts"], limit: 7 })));
  assert.deepEqual(plugin.host.calls, [["walk", "/work/src", {
    includeGlobs: ["/*.ts"], excludeGlobs: [".git", "node_modules", "*.d.ts"], kinds: undefined,
    maxDepth: 1, maxEntries: undefined, maxResults: 7, maxMillis: undefined, maxOutputChars: 1 << 20,
  }]]);
  assert.deepEqual(out, { base: "/work/src", pattern: "*.ts", files: ["/work/src/a.ts", "/work/src/é/b.ts"], truncated: true, unreadable: ["/work/src/x: EACCES"], unreadable_count: 8 });
});

test("fs.search: every option lowered as grep sets it, unset ones none; every result field lifted", async () => {
  const plugin = await filesPlugin();
  const input = { pattern: "a+", path: "/work", glob: "*.txt", case: "smart", before_context: 2, max_matches: 5, max_files: 9, max_line_length: 64 };
  const out = JSON.parse(plugin.tools.call("grep", JSON.stringify(input)));
  assert.deepEqual(plugin.host.calls, [["search", "/work", {
    pattern: "a+", mode: "regex", caseMode: "smart", includeGlobs: ["*.txt"], excludeGlobs: [".git", "node_modules"],
    contextBefore: 2, contextAfter: 0, maxDepth: undefined, maxEntries: undefined, maxFiles: 9, maxBytes: undefined, maxFileBytes: undefined,
    maxMatches: 5, maxMatchesPerFile: undefined, maxLineLength: 64, maxMillis: undefined, maxOutputChars: 1 << 20,
  }]]);
  assert.deepEqual(out, {
    pattern: "a+", path: "/work",
    matches: [{ file: "/work/a.txt", line: 4_000_000_000, text: "a \"quoted\" line\t😀", before: ["b1", "b2"], after: [] }],
    truncated: false, stopped: "max-output", files_searched: 2,
    skipped: { binary: 6, too_large: 5, unreadable: 8, sensitive: 1, symlink: 2, hard_link: 3, special: 4 },
  });
});

test("fs.read, write, list-dir, mounts: paths, bytes and entries cross intact (a mount's trailing / dropped)", async () => {
  const plugin = await filesPlugin({ "/work/x.md": "\uFEFFhé 😀\n" });
  assert.deepEqual(JSON.parse(plugin.tools.call("read_file", '{"path":"x.md"}')), { path: "/work/x.md", content: "hé 😀\n", start_line: 1, end_line: 1, total_lines: 1, truncated: false });
  assert.deepEqual(JSON.parse(plugin.tools.call("write_file", '{"path":"./d/y.md","content":"ü\\u0000"}')), { path: "/work/d/y.md", bytes: 3 });
  assert.deepEqual(JSON.parse(plugin.tools.call("list_dir", '{"path":"."}')), {
    path: "/work", entries: [{ name: "a", kind: "symlink", size: 0 }, { name: "b", kind: "directory", size: 4096 }], total: 2, truncated: false,
  });
  assert.deepEqual(plugin.host.calls, [["read", "/work/x.md"], ["write", "/work/d/y.md", "ü\u0000"], ["listDir", "/work"]]);
});

test("6,000 calls on one instance keep its memory flat (results freed in post-return, host blocks freed once read)", async () => {
  const plugin = await filesPlugin({ "/work/a.txt": "one\ntwo\n".repeat(200) });
  const round = (from: number, to: number): void => {
    for (let i = from; i < to; i++) {
      plugin.tools.call("read_file", JSON.stringify({ path: "/work/a.txt", offset: 1 + (i % 50) }));
      plugin.tools.call("grep", JSON.stringify({ pattern: `t(w)o${i % 7}?`, context: 1 }));
      plugin.tools.call("glob", JSON.stringify({ pattern: "**/*.ts" }));
      // An error on every round: a host-error's strings are freed as a value's are.
      assert.throws(() => plugin.tools.call("edit_file", JSON.stringify({ path: `/work/missing-${i}`, old_text: "a", new_text: "b" })));
    }
    plugin.host.calls.length = 0;
  };
  round(0, 500);
  const settled = plugin.memoryBytes();
  round(500, 1_500);
  assert.equal(plugin.memoryBytes(), settled, `memory grew from ${settled} to ${plugin.memoryBytes()} bytes`);
});

/**
 * grep's own pattern check (AssemblyScript has no RegExp) beside V8's: a pattern V8 compiles must
 * reach the host; one the check refuses must be one V8 refuses, with V8's reason, before any
 * host call. Patterns only the host refuses still come back as invalid-input (grep.test.ts).
 */
const PATTERNS: string[] = [
  // refused by every engine
  "(", "(a|b", "a)", "())", "*a", "a**", "+", "?", "a|*", "(?<=a)*", "^*", "\\b+", "[", "[a-", "[z-a]", "[\\x7f-\\x00]",
  "a{2,1}", "{1}", "x{3}{2}", "\\", "a\\", "(?x)", "(?<1a>x)", "(?<a", "(?<>x)", "$+", "(?<!a){2}",
  // accepted (Annex B is lenient)
  "a", "a+?", "a{2,}?", "{", "a{", "a{,3}", "x{a}", "]", "}", "[]]", "[^]", "[\\d-z]", "[a-\\d]", "[-a]", "[a-]", "\\k", "\\c", "\\cJ",
  "\\u12", "\\x4", "\\8", "\\1(a)", "(?=a)*", "(?!a)+", "(?:a|b)*", "(?<n>a)\\k<n>", "(?<é>x)", "[\\u0041-\\u005a]", "[\\101-\\132]", "[\\b-\\n]",
  "function\\s+main", "^\\s*import .* from ['\"](.+)['\"];?$", "\\$\\{[^}]+\\}", "a|", "|", "(|)", "(?<=\\$)\\d+(?:\\.\\d\\d)?",
];

test("grep's pattern check refuses only what V8 refuses, and all of the table V8 refuses", async () => {
  const plugin = await filesPlugin();
  for (const pattern of PATTERNS) {
    let v8: string | undefined;
    try {
      new RegExp(pattern);
    } catch (e) {
      v8 = (e as Error).message;
    }
    plugin.host.calls.length = 0;
    let refused: { tag: string; val: string } | undefined;
    try {
      plugin.tools.call("grep", JSON.stringify({ pattern }));
    } catch (e) {
      refused = (e as { payload: { tag: string; val: string } }).payload;
    }
    if (v8 === undefined) {
      assert.equal(refused, undefined, `${pattern}: V8 compiles it, the plugin refused it: ${JSON.stringify(refused)}`);
      assert.equal(plugin.host.calls.length, 1, `${pattern}: reached the host`);
    } else {
      assert.deepEqual(refused, { tag: "invalid-input", val: `pattern "${pattern}": is not a valid regular expression: ${v8}` }, pattern);
      assert.deepEqual(plugin.host.calls, [], `${pattern}: refused before any host call`);
    }
  }
});

test("write_file and edit_file write a lone surrogate as TextEncoder does (U+FFFD), so the file reads back as text", async () => {
  const plugin = await filesPlugin({ "/work/e.txt": "ab" });
  const cases: [string, string][] = [["a\ud800b", "a\ufffdb"], ["\udc00", "\ufffd"], ["x\ud83d", "x\ufffd"], ["ok \ud83d\ude00", "ok \ud83d\ude00"]];
  for (const [content, stored] of cases) {
    const out = JSON.parse(plugin.tools.call("write_file", JSON.stringify({ path: "/work/s.txt", content })));
    assert.equal(plugin.files["/work/s.txt"], stored);
    assert.equal(out.bytes, new TextEncoder().encode(content).length);
    assert.equal(JSON.parse(plugin.tools.call("read_file", '{"path":"/work/s.txt"}')).content, stored);
  }
  JSON.parse(plugin.tools.call("edit_file", JSON.stringify({ path: "/work/e.txt", old_text: "a", new_text: "\ud800" })));
  assert.equal(plugin.files["/work/e.txt"], "\ufffdb");
});

test("log.write: each level and the message (non-ASCII, empty, long) lowered as given", async () => {
  const lines: [string, string][] = [];
  const probe = await loadComponent(join(PROJECT_ROOT, "test/plugins/as-log-probe"), {
    "clawhive:host/log": { write: (level: string, message: string) => void lines.push([level, message]) },
  });
  const sent: [string, string][] = [["debug", "d"], ["info", "héllo 😀"], ["warn", ""], ["error", "x".repeat(100_000)]];
  for (const [level, message] of sent) {
    assert.deepEqual(JSON.parse(probe.tools.call("say", JSON.stringify({ level, message }))), { chars: message.length });
  }
  assert.deepEqual(lines, sent);
});
