/**
 * Finding and reading the config file: `--config FILE`, else `CLAWHIVE_CONFIG`, else
 * `clawhive.yaml` (or `clawhive.json`) in the cwd, else none. A file that was named must exist;
 * the one looked for in the cwd may be absent.
 */
import { readFile, stat } from "node:fs/promises";
import { extname, isAbsolute, relative, resolve } from "node:path";
import * as v from "valibot";
import { parseDocument } from "yaml";
import { ConfigError, type ConfigIssue } from "./errors.js";
import { setLeaf, type Layer } from "./overrides.js";
import { ConfigFileSchema } from "./schema.js";
import type { ConfigSource } from "./types.js";

export const DEFAULT_FILES = ["clawhive.yaml", "clawhive.json"] as const;

export interface LocatedFile {
  readonly path: string;
  /** As shown in messages: relative to the cwd when inside it. */
  readonly display: string;
  /** Who named it (`flag --config`, `env CLAWHIVE_CONFIG`), or `default` when found in the cwd. */
  readonly namedBy: ConfigSource;
}

export async function locateConfigFile(options: { file?: string | undefined; env: Readonly<Record<string, string | undefined>>; cwd: string }): Promise<LocatedFile | undefined> {
  const { cwd } = options;
  const envFile = options.env.CLAWHIVE_CONFIG === "" ? undefined : options.env.CLAWHIVE_CONFIG;
  const named = options.file !== undefined ? { text: options.file, by: { kind: "flag", name: "config" } as const } : envFile !== undefined ? { text: envFile, by: { kind: "env", name: "CLAWHIVE_CONFIG" } as const } : undefined;
  if (named) {
    const path = resolve(cwd, named.text);
    if (!(await isFile(path))) {
      throw new ConfigError([{ source: named.by, field: "config", message: `no config file at ${path}` }]);
    }
    return { path, display: display(path, cwd), namedBy: named.by };
  }
  const found: string[] = [];
  for (const name of DEFAULT_FILES) if (await isFile(resolve(cwd, name))) found.push(name);
  if (found.length > 1) {
    throw new ConfigError([{ source: { kind: "default" }, field: "config", message: `both ${found.join(" and ")} are in ${cwd}: keep one, or name one with --config` }]);
  }
  return found[0] === undefined ? undefined : { path: resolve(cwd, found[0]), display: found[0], namedBy: { kind: "default" } };
}

/**
 * Reads, parses and validates the file into a layer of settings. YAML and JSON are told apart
 * by the extension: a `.json` file must be JSON. Every problem is reported, not just the first.
 */
export async function readConfigFile(file: LocatedFile): Promise<Layer> {
  const source: ConfigSource = { kind: "file", file: file.display };
  const fail = (message: string, field = "(root)", cause?: unknown): never => {
    throw new ConfigError([{ source, field, message }], { cause });
  };
  let text: string;
  try {
    text = await readFile(file.path, "utf8");
  } catch (cause) {
    return fail(`cannot read the file: ${(cause as NodeJS.ErrnoException).code ?? String(cause)}`, "(root)", cause);
  }
  let raw: unknown;
  if (extname(file.path).toLowerCase() === ".json") {
    try {
      raw = JSON.parse(text);
    } catch (cause) {
      fail(`not valid JSON: ${(cause as Error).message.replaceAll("\n", "\\n")}`, "(root)", cause);
    }
  } else {
    // Duplicate keys are errors (`uniqueKeys`, the default): the second would silently win.
    const document = parseDocument(text);
    const error = document.errors[0];
    if (error) {
      const at = error.linePos?.[0];
      const message = error.message.split("\n")[0]!.replace(/ at line \d+, column \d+:?$/, "");
      fail(`not valid YAML${at ? ` (line ${at.line}, column ${at.col})` : ""}: ${message}`);
    }
    raw = document.toJS();
  }
  // valibot's object schemas take an array for an object; a list of settings is a mistake.
  if (Array.isArray(raw)) fail("expected a mapping of settings (key: value), got a list");
  const parsed = v.safeParse(ConfigFileSchema, raw ?? {});
  if (!parsed.success) {
    const issues: ConfigIssue[] = parsed.issues.map((issue) => ({ source, field: issuePath(issue), message: plain(issue) }));
    throw new ConfigError(issues);
  }
  return flatten(parsed.output as Record<string, unknown>, source);
}

/** The validated file as leaves; `mail`, `calendar` and lists are whole values. */
function flatten(config: Record<string, unknown>, source: ConfigSource): Layer {
  const layer: Layer = new Map();
  const walk = (value: Record<string, unknown>, prefix: string) => {
    for (const [key, item] of Object.entries(value)) {
      if (item === undefined || key === "$schema") continue;
      const path = prefix === "" ? key : `${prefix}.${key}`;
      if (isPlainObject(item) && path !== "mail" && path !== "calendar") walk(item, path);
      else setLeaf(layer, path, { value: item, source, field: path });
    }
  };
  walk(config, "");
  return layer;
}

function issuePath(issue: v.BaseIssue<unknown>): string {
  let path = "";
  for (const item of issue.path ?? []) path += typeof item.key === "number" ? `[${item.key}]` : path === "" ? String(item.key) : `.${String(item.key)}`;
  return path === "" ? "(root)" : path;
}

/** Valibot's `Invalid type: Expected X but received Y`, said plainly. */
function plain(issue: v.BaseIssue<unknown>): string {
  if (issue.message.startsWith("Invalid type:") || issue.message.startsWith("Invalid key:")) return `expected ${issue.expected ?? "something else"}, got ${issue.received}`;
  return issue.message;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}

function display(path: string, cwd: string): string {
  const rel = relative(cwd, path);
  return rel !== "" && !rel.startsWith("..") && !isAbsolute(rel) ? rel : path;
}
