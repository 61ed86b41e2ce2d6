/**
 * Reading the Dockerfile and compose.yaml as an engine would, for the tests that start their
 * processes without one: the final stage's settings, and compose's variable interpolation.
 */

export interface Image {
  /** The final stage's base image. */
  from: string;
  /** ENV of the final stage, in order (a later one wins). */
  env: Record<string, string>;
  workdir: string;
  user: string | undefined;
  cmd: string[];
  /** The final stage's instructions, continuation lines joined. */
  instructions: string[];
}

/** The final stage of a Dockerfile (`FROM` to the end): its base, ENV, WORKDIR, USER and CMD. */
export function readImage(dockerfile: string): Image {
  const instructions = dockerfile
    .replace(/\\\n/g, " ")
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("#"));
  const last = instructions.map((line) => /^FROM\s/i.test(line)).lastIndexOf(true);
  if (last === -1) throw new Error("Dockerfile: no FROM");
  const stage = instructions.slice(last);
  const image: Image = { from: stage[0]!.split(/\s+/)[1] ?? "", env: {}, workdir: "/", user: undefined, cmd: [], instructions: stage };
  for (const line of stage) {
    const [, op = "", rest = ""] = /^(\w+)\s+(.*)$/.exec(line) ?? [];
    switch (op.toUpperCase()) {
      case "ENV":
        for (const [, name, value] of rest.matchAll(/([A-Za-z_][A-Za-z0-9_]*)=("[^"]*"|\S*)/g)) image.env[name!] = value!.replace(/^"|"$/g, "");
        break;
      case "WORKDIR":
        image.workdir = rest.startsWith("/") ? rest : `${image.workdir.replace(/\/$/, "")}/${rest}`;
        break;
      case "USER":
        image.user = rest;
        break;
      case "CMD":
        image.cmd = JSON.parse(rest) as string[];
        break;
    }
  }
  return image;
}

/**
 * Compose's interpolation of every string in `value`: `$VAR`, `${VAR}`, `${VAR:-default}`,
 * `${VAR-default}`, `${VAR:?error}`, `${VAR?error}` (the error thrown as compose reports it),
 * `$$` for a dollar. https://docs.docker.com/reference/compose-file/interpolation/
 */
export function interpolate(value: unknown, env: Record<string, string | undefined>): unknown {
  if (typeof value === "string") {
    return value.replace(/\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?)([-?])([^}]*))?\}|\$([A-Za-z_][A-Za-z0-9_]*)/g, (whole, name?: string, colon?: string, kind?: string, word?: string, bare?: string) => {
      if (whole === "$$") return "$";
      if (bare !== undefined) return env[bare] ?? "";
      const set = env[name!];
      const missing = set === undefined || (colon === ":" && set === "");
      if (kind === "-") return missing ? word! : set!;
      if (kind === "?" && missing) throw new Error(`required variable ${name} is missing a value: ${word}`);
      return set ?? "";
    });
  }
  if (Array.isArray(value)) return value.map((item) => interpolate(item, env));
  if (value !== null && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, interpolate(v, env)]));
  return value;
}
