import * as v from "valibot";
import { InvalidInputError, NotFoundError } from "../../errors.js";
import { inert } from "../../text/inert.js";
import { UpgradeNeedsAcceptance } from "../../plugins/install/index.js";
import { proposeManifest } from "../../plugins/install/propose.js";
import { sandboxDescriber } from "../../plugins/install/propose-describe.js";
import type { DownloadOptions, InstalledPlugin, InstallResult } from "../../plugins/install/index.js";
import type { Runtime } from "../../runtime.js";
import { principalOf } from "../auth/index.js";
import { errorBody } from "../middleware/api-error.js";
import { NAME, QUERY_BOOLEAN } from "./fields.js";
import { defineRoute, reply } from "./route.js";
import * as S from "../schemas/resources.js";
import { PAGE_QUERY, pageOf } from "./page.js";
import type { ApiRoute, RawBody } from "./route.js";
import { FromRegistry, FromSource, FromUrl, readSource, readUpload, readUrl, SHA256 } from "./plugin-upload.js";
import { installAnswer, pendingView, pluginDetail, pluginSummary } from "./plugin-views.js";
import { pendingUpgradeRoutes, principalName } from "./plugin-upgrades.js";

export { pluginDetail, pluginSummary } from "./plugin-views.js";

/** Largest uploaded package: the installer's own cap on a plugin file. */
export const MAX_UPLOAD_BYTES = 64 * 1024 * 1024;

export interface PluginRoutesOptions {
  /** For installs by URL: extra trusted CA certificates (a private registry's), size cap, timeout. */
  readonly download?: DownloadOptions;
  /** Where an upload is written (in a fresh private folder) before it is installed; default the OS temp dir. */
  readonly tempDir?: string;
  /**
   * Also accept `{source}` bodies (a path or URL the runtime reads itself, `FromSource`): only
   * for the client in this process, whose caller already has the files; never for a served app.
   */
  readonly localSources?: boolean;
}

const RAW = {
  mediaTypes: ["application/gzip", "application/x-gzip"],
  description: "A plugin package: a .tgz holding plugin.json and plugin.wasm (at its root or under one folder). Or, as JSON, {url, sha256} of such a package.",
} as const;

const Params = v.strictObject({ name: NAME });
const ListQuery = v.strictObject({ ...PAGE_QUERY });
const InstallQuery = v.strictObject({ sha256: v.optional(SHA256), allow_similar_name: v.optional(QUERY_BOOLEAN), allow_unsigned: v.optional(QUERY_BOOLEAN) });
const UpgradeQuery = v.strictObject({ sha256: v.optional(SHA256), accept: v.optional(QUERY_BOOLEAN), allow_unsigned: v.optional(QUERY_BOOLEAN) });

/** Plugins: list, inspect, install (upload or URL), upgrade, remove. Admin only. */
export function pluginRoutes(runtime: Runtime, options: PluginRoutesOptions = {}): ApiRoute[] {
  /** The package a request sent: an upload, or the URL in its JSON body. */
  const source = (
    input: { raw: RawBody | undefined; body: FromUrl | FromSource | FromRegistry | undefined; query: { sha256?: string | undefined } },
    read: { by: string; uploader: string; action: "install" | "upgrade"; name?: string },
  ) => {
    if (input.raw !== undefined) return readUpload(runtime, input.raw, { sha256: input.query.sha256, tempDir: options.tempDir, ...read });
    const body = input.body!;
    if ("source" in body) return readSource(runtime, body, read);
    return readUrl(runtime, body, { querySha: input.query.sha256, download: options.download, ...read });
  };
  // A served app's body is FromUrl or FromRegistry: a `source` there that is not oci:// is refused (400).
  // The served schema is chosen by the body's keys (not a union) so that errors name the field that is wrong.
  const served = v.lazy((input: unknown) => (typeof input === "object" && input !== null && "source" in input ? FromRegistry : FromUrl));
  const body = (options.localSources === true ? v.union([FromUrl, FromSource]) : served) as v.GenericSchema<unknown, FromUrl | FromSource | FromRegistry>;
  const allowUnsigned = (input: { body: { allow_unsigned?: boolean | undefined } | undefined; query: { allow_unsigned?: boolean | undefined } }) => input.body?.allow_unsigned ?? input.query.allow_unsigned ?? false;
  return [
    defineRoute({
      method: "GET",
      path: "/v1/plugins",
      tag: "plugins",
      summary: "List installed plugins, by name, a page at a time",
      roles: ["admin"],
      query: ListQuery,
      responses: { 200: { description: "a page of plugins, by name", schema: S.PluginPage } },
      handler: async (c, { query }) => {
        const installed = [...(await runtime.installer.registry.list())].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
        const page = pageOf(installed, (p) => p.name, query);
        return reply(c, S.PluginPage, { plugins: page.items.map(pluginSummary), next_cursor: page.next_cursor });
      },
    }),
    defineRoute({
      method: "POST",
      path: "/v1/plugins",
      tag: "plugins",
      summary: "Install a plugin from an uploaded package, an https URL with its sha256, or an OCI registry",
      description:
        "`{source: \"oci://REGISTRY/NAME:TAG\"}` (or `@sha256:…`) pulls a plugin artifact from a registry (docs/distribution.md), pinned by digest: its origin records the digest a tag resolved to; `registry_secret` names the secret holding the registry's username:password. A registry's plugin must be signed by a key trusted for its publisher (POST /v1/plugin-keys), and any package carrying a signature must verify; a refused signature (plugin_unsigned, signature_invalid, signature_mismatch, key_untrusted, key_revoked) installs only with `allow_unsigned: true` (body, or query of an upload), and the install's audit record names what was acknowledged. Verified like `clawhive plugin install`: hash, the wasm's imports against its declared capabilities, its tools against its manifest. An installed name is never replaced (409 plugin_exists; upgrade it instead). A name confusable with an installed plugin's (`fi1es` beside `files`) is refused (409 plugin_name_similar) unless `allow_similar_name` is true (in the JSON body, or the query of an upload). Every install, allowed or refused, is a `plugin` audit record.",
      roles: ["admin"],
      query: InstallQuery,
      body,
      raw: RAW,
      bodyLimitBytes: MAX_UPLOAD_BYTES,
      responses: {
        200: { description: "action unchanged: these exact bytes were installed already", schema: S.PluginInstalled },
        201: { description: "action installed", schema: S.PluginInstalled },
        409: { description: "plugin_exists: a plugin of that name is installed; plugin_name_similar: the name is confusable with an installed plugin's" },
        422: { description: "the package failed verification (blob_tampered, package_invalid, …) or could not be downloaded" },
      },
      handler: async (c, input) => {
        const by = principalName(c);
        const pkg = await source(input, { by, uploader: principalOf(c).tokenId, action: "install" });
        const allowSimilarName = input.body?.allow_similar_name ?? input.query.allow_similar_name ?? false;
        const result = await installed(runtime, () => runtime.installer.installPackage(pkg, { firstParty: false, by, allowSimilarName, allowUnsigned: allowUnsigned(input) }));
        return reply(c, S.PluginInstalled, installAnswer(result), result.action === "installed" ? 201 : 200);
      },
    }),
    defineRoute({
      method: "POST",
      path: "/v1/plugins/proposals",
      tag: "plugins",
      summary: "Propose a manifest for a bare component or Extism module (nothing is installed)",
      description:
        "Reads an uploaded binary's imports and exports and answers the plugin.json `clawhive plugin install some.wasm` would propose: the capabilities the functions it imports need, and its tools — a component's typed exports, an Extism module's exported functions, or what its describe (or hyper-mcp's list_tools) lists, read in a sandbox with no grants. The proposal is checked as install checks a package: a binary install would refuse (an import it does not serve, a type JSON cannot carry, a tool shape install refuses) gets 422 naming why. A person reviews it, then installs a .tgz of it and the binary.",
      roles: ["admin"],
      raw: { mediaTypes: ["application/wasm"], description: "The binary's bytes (a .wasm: a component or an Extism core module)." },
      bodyLimitBytes: MAX_UPLOAD_BYTES,
      responses: {
        200: { description: "`{manifest, lines}`: the proposed plugin.json and what a person reads before accepting it", schema: S.PluginProposal },
        422: { description: "no manifest can be proposed: install would refuse the binary (manifest_unproposable), a type cannot map to JSON, or its types are unreadable" },
      },
      handler: async (c, input) => {
        const bytes = input.raw?.bytes;
        if (!bytes || bytes.length < 8 || bytes[0] !== 0x00 || bytes[1] !== 0x61 || bytes[2] !== 0x73 || bytes[3] !== 0x6d) {
          throw new InvalidInputError("body: expected the bytes of a WebAssembly component or core module (application/wasm)", { field: "body" });
        }
        const proposal = await proposeManifest(bytes, "upload.wasm", { describe: sandboxDescriber(runtime.sandbox, runtime.installer.cacheDir) });
        return reply(c, S.PluginProposal, { manifest: proposal.manifest as unknown as Record<string, unknown>, lines: proposal.lines.map((l) => inert(l, { newlines: false })) });
      },
    }),
    ...pendingUpgradeRoutes(runtime),
    defineRoute({
      method: "GET",
      path: "/v1/plugins/:name",
      tag: "plugins",
      summary: "One installed plugin: manifest, tools with input schemas, origin",
      roles: ["admin"],
      params: Params,
      responses: { 200: { description: "the plugin", schema: S.PluginBody }, 404: { description: "no plugin of that name" } },
      handler: async (c, { params }) => reply(c, S.PluginBody, { plugin: pluginDetail(await installedPlugin(runtime, params.name)) }),
    }),
    defineRoute({
      method: "POST",
      path: "/v1/plugins/:name/upgrade",
      tag: "plugins",
      summary: "Upgrade an installed plugin; a widening upgrade needs ?accept=true",
      description:
        "Without accept, an upgrade that widens what the plugin may do (a capability, a tool, a lowered risk, another publisher) is refused with 409 upgrade_needs_acceptance and the permission diff in error.diff; nothing installed changes, and the verified package is kept as a pending upgrade (error.pending_upgrade) a person can accept later (POST /v1/plugins/:name/upgrade/accept) or reject (DELETE /v1/plugins/:name/upgrade).",
      roles: ["admin"],
      params: Params,
      query: UpgradeQuery,
      body,
      raw: RAW,
      bodyLimitBytes: MAX_UPLOAD_BYTES,
      responses: {
        200: { description: "action upgraded or unchanged, with the permission diff", schema: S.PluginInstalled },
        404: { description: "no plugin of that name" },
        409: { description: "upgrade_needs_acceptance (with error.diff and error.pending_upgrade), or plugin_version_exists", schema: S.UpgradeRefused },
        422: { description: "the package failed verification, or is another plugin (plugin_name_mismatch)" },
      },
      handler: async (c, input) => {
        const { params, query } = input;
        await installedPlugin(runtime, params.name, { action: "upgrade", by: principalName(c) });
        if (input.body?.allow_similar_name !== undefined) throw new InvalidInputError("body.allow_similar_name: an upgrade keeps the plugin's name; leave it out", { field: "body.allow_similar_name" });
        const by = principalName(c);
        const pkg = await source(input, { by, uploader: principalOf(c).tokenId, action: "upgrade", name: params.name });
        try {
          const result = await installed(runtime, () => runtime.installer.upgradePackage(params.name, pkg, { accept: query.accept ?? false, firstParty: false, by, allowUnsigned: allowUnsigned(input) }));
          return reply(c, S.PluginInstalled, installAnswer(result), 200);
        } catch (error) {
          if (!(error instanceof UpgradeNeedsAcceptance)) throw error;
          const lines = error.diff.lines.map((line) => inert(line, { newlines: false }));
          const later = error.pending === undefined ? "" : `, or accept the pending upgrade kept for it: POST /v1/plugins/${params.name}/upgrade/accept (until ${new Date(error.pending.expiresAt).toISOString()})`;
          const message = `upgrading ${params.name} to ${pkg.manifest.version} widens what it may do: ${lines.join("; ")}; send the same request with ?accept=true to grant these permissions${later}`;
          const answer = errorBody(error.code, message);
          const pending = error.pending === undefined ? {} : { pending_upgrade: pendingView(error.pending) };
          return c.json({ error: { ...answer.error, diff: { widening: true, lines }, ...pending } }, 409);
        }
      },
    }),
    defineRoute({
      method: "DELETE",
      path: "/v1/plugins/:name",
      tag: "plugins",
      summary: "Remove a plugin (refused while an unfinished run uses it)",
      roles: ["admin"],
      params: Params,
      responses: { 200: { description: "removed", schema: S.PluginRemoved }, 404: { description: "no plugin of that name" }, 409: { description: "plugin_in_use" } },
      handler: async (c, { params }) => {
        const removed = await runtime.removePlugin(params.name, { by: principalName(c) });
        return reply(c, S.PluginRemoved, { removed: pluginSummary(removed) });
      },
    }),
  ];
}

/** The installed plugin `name`; for a change (`audit`), its absence is a refusal recorded like any other. */
async function installedPlugin(runtime: Runtime, name: string, audit?: { action: "upgrade"; by: string }): Promise<InstalledPlugin> {
  const plugin = await runtime.installer.registry.get(name);
  if (plugin !== undefined) return plugin;
  const error = new NotFoundError(`no plugin named ${name} is installed`);
  if (audit) await runtime.installer.recordRefusal(audit.action, { name }, audit.by, error);
  throw error;
}

/** Installs or upgrades, then loads what the store now holds into this runtime. */
async function installed(runtime: Runtime, work: () => Promise<InstallResult>): Promise<InstallResult> {
  const result = await work();
  await runtime.refreshPlugins();
  return result;
}

