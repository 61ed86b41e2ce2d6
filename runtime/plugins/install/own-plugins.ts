import { basename } from "node:path";
import { buildAll } from "../build-all.js";
import type { PluginInstaller } from "./installer.js";
import type { PluginPackage } from "./package.js";

/**
 * Installs the runtime's own plugin folders through the same path as any plugin, and keeps them
 * in step with their folders: a changed first-party plugin is upgraded (its permission diff is
 * reported). A plugin of the same name installed by a person is left alone.
 */
export async function installOwnPlugins(installer: PluginInstaller, dirs: readonly string[], onProgress?: (line: string) => void): Promise<void> {
  // Stale builds are made first, a few at once. Then those to install are read and compiled,
  // all at once (the build children take a few jobs at a time), and the installs below, one at a
  // time, find their compiled builds cached.
  const builds = await buildAll(dirs, { cacheDir: installer.cacheDir, ...(onProgress ? { onProgress } : {}) });
  const toInstall: Array<{ index: number; dir: string; pkg: Promise<PluginPackage>; prepared: Promise<void> }> = [];
  for (const [index, dir] of dirs.entries()) {
    // Most starts change nothing: a build (cached, or made just now) of the same bytes as the
    // installed plugin is not read at all (each component is ~12 MB).
    const cached = builds[index]?.built;
    if (cached) {
      const existing = await installer.registry.get(cached.name);
      if (existing && existing.blobSha256 === cached.sha256) continue;
    }
    const pkg = installer.readPackage(dir);
    // A package that cannot be read is thrown below; a failed compile is met again by the install.
    toInstall.push({ index, dir, pkg, prepared: pkg.then((p) => installer.prepare(p)).catch(() => {}) });
  }
  for (const { index, dir, pkg: reading, prepared } of toInstall) {
    await prepared;
    onProgress?.(`plugin ${index + 1}/${dirs.length} ${basename(dir)}: installing`);
    const pkg = await reading;
    for (let attempt = 0; ; attempt++) {
      try {
        const existing = await installer.registry.get(pkg.manifest.name);
        if (existing && !existing.firstParty) {
          onProgress?.(`${pkg.manifest.name}: a plugin of this name was installed by a person; the built-in one from ${dir} is not installed`);
          break;
        }
        const result = existing
          ? await installer.upgradePackage(existing.name, pkg, { accept: true, firstParty: true })
          : await installer.installPackage(pkg, { firstParty: true });
        if (result.action === "upgraded" && result.diff && result.diff.lines.length > 0) {
          onProgress?.(`${pkg.manifest.name}: upgraded to ${pkg.manifest.version}: ${result.diff.lines.join("; ")}`);
        }
        break;
      } catch (error) {
        // Another runtime starting on the same store installed it meanwhile: look again once.
        const code = (error as { code?: string }).code;
        if (attempt === 0 && (code === "plugin_changed" || code === "plugin_exists")) continue;
        throw error;
      }
    }
  }
}
