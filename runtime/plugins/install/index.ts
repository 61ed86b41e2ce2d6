/** Installing plugins: packages, the registry of installed plugins and blobs, permission diffs. */
export { PluginInstaller, UpgradeNeedsAcceptance, checkDescriptors } from "./installer.js";
export type { InstallResult, InstallSourceOptions, LoadedPlugin, PluginInstallerOptions, UpgradeOptions } from "./installer.js";
export { PluginRegistry, pluginMigrations, nameKey } from "./registry.js";
export type { InstalledPlugin, InstalledTool } from "./registry.js";
export { permissionDiff } from "./diff.js";
export type { PermissionDiff, PermissionView } from "./diff.js";
export { readPackage, MAX_WASM_BYTES } from "./package.js";
export type { PluginPackage, ReadPackageOptions } from "./package.js";
export type { DownloadOptions } from "./download.js";
