import { statSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import * as v from "valibot";
import { InvalidInputError } from "../errors.js";

/**
 * What a run may reach, fixed when the run starts and copied into every instance it binds.
 * (The agent-manifest conjunction arrives with the policy engine; this is the run's own part.)
 */
export const RunGrantSchema = v.strictObject({
  fs: v.optional(
    v.strictObject({
      mounts: v.pipe(
        v.array(
          v.strictObject({
            guest: v.pipe(v.string(), v.regex(/^\/[^\0]*$/, "expected an absolute guest path like /work")),
            host: v.pipe(v.string(), v.minLength(1)),
            mode: v.optional(v.picklist(["ro", "rw"]), "ro"),
          }),
        ),
        v.maxLength(32),
      ),
      allowSensitive: v.optional(v.array(v.string())),
      maxReadBytes: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1))),
      maxWriteBytes: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1))),
    }),
  ),
  log: v.optional(v.boolean(), true),
});
export type RunGrant = v.InferOutput<typeof RunGrantSchema>;
export type RunGrantInput = v.InferInput<typeof RunGrantSchema>;

/**
 * Validates a grant from the edge (API body, CLI flags); relative host paths resolve against
 * `baseDir`, and every mount must name an existing directory.
 */
export function parseRunGrant(input: unknown, options: { baseDir: string }): RunGrant {
  const result = v.safeParse(RunGrantSchema, input);
  if (!result.success) {
    const issue = result.issues[0];
    const path = (issue && v.getDotPath(issue)) ?? "grants";
    throw new InvalidInputError(`grants.${path}: ${issue?.message ?? "invalid"}`, { field: `grants.${path}` });
  }
  const grant = result.output;
  grant.fs?.mounts.forEach((mount, i) => {
    const host = isAbsolute(mount.host) ? mount.host : resolve(options.baseDir, mount.host);
    let isDir = false;
    try {
      isDir = statSync(host).isDirectory();
    } catch {
      // reported below
    }
    if (!isDir) {
      throw new InvalidInputError(`grants.fs.mounts[${i}].host: directory does not exist: ${mount.host}`, { field: `grants.fs.mounts[${i}].host` });
    }
    mount.host = host;
  });
  return deepFreeze(grant);
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === "object") {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}
