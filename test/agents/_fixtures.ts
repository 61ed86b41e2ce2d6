/** Temp data dirs, a valid base manifest to mutate, and assertions on manifest errors. */
import assert from "node:assert/strict";
import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestContext } from "node:test";
import { fileURLToPath } from "node:url";
import { stringify } from "yaml";
import { AgentManifestError, parseAgentManifest } from "../../runtime/agents/index.js";
import type { ParseAgentOptions, ParsedAgentManifest } from "../../runtime/agents/index.js";

/** The repo's `capabilities/` folder, from `dist/test/agents/`. */
export const CAPABILITIES_DIR = fileURLToPath(new URL("../../../capabilities/", import.meta.url));

export interface DataDir {
  /** The data dir (realpath'd): relative hosts resolve here. Holds `workspace/` and `other/`. */
  base: string;
  workspace: string;
  other: string;
}

export async function dataDir(t: TestContext): Promise<DataDir> {
  const base = await realpath(await mkdtemp(join(tmpdir(), "clawhive-agents-")));
  t.after(() => rm(base, { recursive: true, force: true }));
  await mkdir(join(base, "workspace", "src"), { recursive: true });
  await mkdir(join(base, "other"));
  await writeFile(join(base, "a-file"), "not a dir");
  return { base, workspace: join(base, "workspace"), other: join(base, "other") };
}

export type Path = readonly (string | number)[];
type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** A manifest that parses: the control every mutation is measured against. */
export function baseManifest(): Record<string, Json> {
  return {
    name: "tester",
    description: "A test agent.",
    model: { provider: "anthropic", id: "claude-sonnet-4-5", api_key_secret: "anthropic-api-key" },
    system_prompt: "Be careful.",
    plugins: [{ name: "files", version: "^0.1.0" }],
    grants: {
      "fs.read": { mounts: [{ guest: "/workspace", host: "./workspace" }] },
      "fs.write": { mounts: [{ guest: "/workspace", host: "./workspace" }] },
    },
  };
}

/** A deep copy of `value` with `path` set to `to` (`undefined` deletes it). */
export function withField<T>(value: T, path: Path, to: unknown): T {
  const copy = structuredClone(value) as Record<string | number, unknown>;
  let node: Record<string | number, unknown> = copy;
  path.slice(0, -1).forEach((key, i) => {
    node[key] ??= typeof path[i + 1] === "number" ? [] : {};
    node = node[key] as Record<string | number, unknown>;
  });
  const last = path[path.length - 1] as string | number;
  if (to === undefined) delete node[last];
  else node[last] = to;
  return copy as T;
}

export const FILE = "capabilities/tester.yaml";

export function parseObject(manifest: unknown, base: string, options: Partial<ParseAgentOptions> = {}): ParsedAgentManifest {
  return parseAgentManifest(stringify(manifest), { file: FILE, baseDir: base, ...options });
}

/** `fn` throws an AgentManifestError whose first line is `<file>: <path>: <message>`. */
export function assertManifestError(fn: () => unknown, path: string, message: RegExp, file = FILE): AgentManifestError {
  let error: unknown;
  try {
    fn();
  } catch (err) {
    error = err;
  }
  assert.ok(error instanceof AgentManifestError, `expected an AgentManifestError, got ${String(error)}`);
  const first = error.message.split("\n")[0] ?? "";
  assert.ok(first.startsWith(`${file}: ${path}: `), `expected "${file}: ${path}: …", got ${JSON.stringify(first)}`);
  assert.match(first.slice(`${file}: ${path}: `.length), message);
  assert.equal(error.field, path);
  assert.equal(error.code, "invalid_input");
  return error;
}
