/** Installing plugins: packages, the registry of installed plugins and blobs, permission diffs. */
export { PluginInstaller, UpgradeNeedsAcceptance } from "./installer.js";
export { checkDescriptors } from "./described.js";
export type { ChangeOptions, InstallOptions, InstallResult, InstallSourceOptions, LoadedPlugin, PluginInstallerOptions, SignatureOptions, UpgradeOptions } from "./installer.js";
export { RUNTIME_PRINCIPAL } from "./audit.js";
export type { PluginAuditSink } from "./audit.js";
export { nameSkeleton, similarNames } from "./lookalike.js";
export { PluginRegistry, pluginMigrations, nameKey } from "./registry.js";
export type { InstalledPlugin, InstalledTool } from "./registry.js";
export { permissionDiff } from "./diff.js";
export { MAX_PENDING_UPGRADES, PENDING_UPGRADE_TTL_MS } from "./pending.js";
export type { PendingUpgrade } from "./pending.js";
export type { PermissionDiff, PermissionView } from "./diff.js";
export { readPackage, MAX_WASM_BYTES } from "./package.js";
export type { PluginPackage, ReadPackageOptions } from "./package.js";
export type { DownloadOptions } from "./download.js";
