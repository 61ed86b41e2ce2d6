import * as v from "valibot";
import { InvalidInputError } from "../errors.js";
import { CLIENT_JSON, scanJson } from "../json/index.js";

const NAME = /^[a-z][a-z0-9-]{0,62}$/;
const TOOL = /^[a-z][a-z0-9_]{0,62}$/;
const SEMVER = /^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?$/;

const SHA256 = /^[0-9a-f]{64}$/;

/** How a plugin's wasm is run: a WASM component (WIT), or an Extism core module. */
export const PluginFormatSchema = v.picklist(["component", "extism"]);
export type PluginFormat = v.InferOutput<typeof PluginFormatSchema>;

/** The wasm file of a plugin package (a folder or a .tgz), whatever its format. */
export const PACKAGE_WASM = "plugin.wasm";

export const RiskSchema = v.picklist(["safe", "guarded", "unsafe"]);
export type Risk = v.InferOutput<typeof RiskSchema>;

const ARG = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/** The capabilities whose resource a tool argument can name (a URL, a path, an agent, a calendar, a label). */
export const RESOURCE_CAPABILITIES = ["http.fetch", "fs.read", "fs.write", "schedule", "calendar.read", "calendar.add", "gmail.read", "mail.send", "message.send"] as const;
export const ResourceCapabilitySchema = v.picklist(RESOURCE_CAPABILITIES, `expected one of ${RESOURCE_CAPABILITIES.join(", ")}`);
export type ResourceCapability = v.InferOutput<typeof ResourceCapabilitySchema>;

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;
const CONFIG_KEY = /^[A-Za-z0-9_.-]{1,128}$/;
const smallRecord = (key: RegExp, keyMessage: string, what: string) =>
  v.optional(
    v.pipe(
      v.record(v.pipe(v.string(), v.regex(key, keyMessage)), v.pipe(v.string(), v.maxLength(8192))),
      v.check((r) => Object.keys(r).length <= 64, `at most 64 ${what}`),
    ),
    {},
  );

/**
 * What a plugin's WASI guest is given (docs/wasi.md): its environment variables and its
 * `wasi:config/store` values, fixed here, never read from the host's environment.
 */
export const WasiGrantSchema = v.strictObject({
  env: smallRecord(ENV_NAME, "expected an environment variable name", "environment variables"),
  config: smallRecord(CONFIG_KEY, "expected a config key: letters, digits, '_', '.', '-'", "config values"),
});

/** `plugin.json`: what a plugin says about itself. Checked against the component at load. */
export const PluginManifestSchema = v.pipe(v.strictObject({
  name: v.pipe(v.string(), v.regex(NAME, "expected a lowercase name: letters, digits, '-'")),
  version: v.pipe(v.string(), v.regex(SEMVER, "expected a semantic version like 1.2.3")),
  description: v.pipe(v.string(), v.minLength(1), v.maxLength(500)),
  publisher: v.pipe(v.string(), v.minLength(1), v.maxLength(100)),
  /** Default `component`. */
  format: v.optional(PluginFormatSchema, "component"),
  /**
   * What a component exports: `tools` (the describe/call contract, the default) or `typed`
   * (typed WIT functions, each a tool whose schema is derived from its WIT types).
   */
  contract: v.optional(v.picklist(["tools", "typed"], "expected tools or typed")),
  /** sha256 of the package's `plugin.wasm`; when present, install refuses other bytes. */
  sha256: v.optional(v.pipe(v.string(), v.regex(SHA256, "expected 64 lowercase hex digits"))),
  /** The WIT world in the plugin's `wit/` folder the component targets (needed to build from source). */
  world: v.optional(v.pipe(v.string(), v.regex(NAME))),
  /** Entry source, relative to the plugin folder. */
  source: v.optional(v.string(), "src/index.ts"),
  /**
   * What the source is written in: `typescript` (or JavaScript; the default when absent), built with
   * componentize-js, or `assemblyscript`, compiled with asc to a core module of a few KiB
   * (docs/plugins.md).
   */
  language: v.optional(v.picklist(["typescript", "assemblyscript"], "expected typescript or assemblyscript")),
  capabilities: v.array(v.pipe(v.string(), v.regex(/^[a-z]+(?:\.[a-z]+)?$/, "expected a capability like fs.read"))),
  /** The WASI guest's environment and config (absent: both empty). */
  wasi: v.optional(WasiGrantSchema),
  tools: v.record(
    v.pipe(v.string(), v.regex(TOOL, "expected a tool name: lowercase letters, digits, '_'")),
    v.strictObject({
      risk: RiskSchema,
      /** The capabilities a typed export may use (a describe/call tool says its own in describe). */
      capabilities: v.optional(v.array(v.pipe(v.string(), v.regex(/^[a-z]+(?:\.[a-z]+)?$/, "expected a capability like fs.read")))),
      /**
       * Which top-level argument names the resource the tool's effect touches, and under which
       * capability it is decided (`{url: "http.fetch"}`): the policy decides it before a person
       * is asked to approve the call (runtime/policy/resource-args.ts). Only ever refuses.
       */
      resource_args: v.optional(
        v.pipe(
          v.record(v.pipe(v.string(), v.regex(ARG, "expected an argument name: letters, digits, '_'")), ResourceCapabilitySchema),
          v.check((args) => Object.keys(args).length <= 8, "at most 8 resource arguments"),
        ),
      ),
    }),
  ),
}), v.check(
  (m) => Object.values(m.tools).every((t) => Object.values(t.resource_args ?? {}).every((c) => m.capabilities.includes(c))),
  "tools.*.resource_args: each capability must be one the plugin declares in capabilities",
), v.check(
  (m) => Object.values(m.tools).every((t) => (t.capabilities ?? []).every((c) => m.capabilities.includes(c))),
  "tools.*.capabilities: each capability must be one the plugin declares in capabilities",
), v.check(
  (m) => m.contract === "typed" || Object.values(m.tools).every((t) => t.capabilities === undefined),
  "tools.*.capabilities: only a typed plugin (contract: typed) declares its tools' capabilities here; a describe/call plugin says them in describe",
), v.check(
  (m) => m.contract !== "typed" || m.format === "component",
  "contract: typed exports are a component's; an Extism plugin uses describe/call",
));
export type PluginManifest = v.InferOutput<typeof PluginManifestSchema>;

/** Parses `plugin.json` text; errors name the file and the field path. */
export function parsePluginManifest(text: string, file: string): PluginManifest {
  // A package's manifest is untrusted: bounded before it is parsed, stored and written out again.
  const problem = scanJson(text, CLIENT_JSON);
  if (problem) throw new InvalidInputError(`${file}: ${problem.message}`, { field: problem.path || "(root)" });
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (cause) {
    throw new InvalidInputError(`${file}: not valid JSON: ${(cause as Error).message}`, { cause });
  }
  const result = v.safeParse(PluginManifestSchema, raw);
  if (!result.success) {
    const issue = result.issues[0];
    const path = issue ? v.getDotPath(issue) ?? "(root)" : "(root)";
    throw new InvalidInputError(`${file}: ${path}: ${issue?.message ?? "invalid"}`, { field: path });
  }
  return result.output;
}
