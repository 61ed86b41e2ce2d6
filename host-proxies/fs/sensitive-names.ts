/**
 * The default deny list: names that usually hold credentials, keys or secrets. A path is
 * sensitive when ANY of its segments inside the mount matches, so `.ssh/known_hosts` and
 * `.aws/config` are covered by their directory. Patterns are whole-name globs where `*` is
 * any run of characters.
 *
 * Names are compared after NFKC normalisation and lower-casing: case-insensitive filesystems
 * (macOS, ext4 casefold, NTFS via mounts) open `.SSH` as `.ssh`, and casefolding ones also
 * fold compatibility forms (`ſ` → `s`, the Kelvin sign → `k`).
 */
export const DEFAULT_SENSITIVE_NAMES: readonly string[] = Object.freeze([
  // SSH, GPG and cloud/CLI credential directories.
  ".ssh",
  ".gnupg",
  ".aws",
  ".azure",
  ".docker",
  ".kube",
  ".password-store",
  // Dotfiles that hold tokens or passwords in plain text.
  ".env",
  ".env.*",
  ".netrc",
  ".npmrc",
  ".pypirc",
  ".pgpass",
  ".my.cnf",
  ".git-credentials",
  ".vault-token",
  ".htpasswd",
  ".s3cfg",
  ".boto",
  // Shell and REPL histories: commands typed with tokens in them.
  ".*_history",
  // Private keys and key stores.
  "id_rsa*",
  "id_dsa*",
  "id_ecdsa*",
  "id_ed25519*",
  "*.pem",
  "*.key",
  "*.p12",
  "*.pfx",
  "*.jks",
  "*.keystore",
  "*.ppk",
  "*.kdbx",
  // Credential files by name (AWS, cargo, gem, gcloud, OAuth client secrets).
  "credentials",
  "credentials.json",
  "credentials.toml",
  "credentials.db",
  "access_tokens.db",
  "application_default_credentials.json",
  "legacy_credentials",
  "client_secret*.json",
  "*.tfstate",
]);

const COMPILED = DEFAULT_SENSITIVE_NAMES.map((pattern) => ({ pattern, regex: globToRegex(pattern) }));

/** The form names and patterns are compared in. */
export function foldName(name: string): string {
  return name.normalize("NFKC").toLowerCase();
}

/** Every deny-list pattern `name` matches (empty when the name is not sensitive). */
export function sensitivePatterns(name: string): string[] {
  const folded = foldName(name);
  return COMPILED.filter(({ regex }) => regex.test(folded)).map(({ pattern }) => pattern);
}

/** Whether `pattern` is one of the deny-list patterns (compared folded). */
export function isSensitivePattern(pattern: string): boolean {
  const folded = foldName(pattern);
  return DEFAULT_SENSITIVE_NAMES.includes(folded);
}

function globToRegex(pattern: string): RegExp {
  const body = pattern
    .split("*")
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
    .join(".*");
  // `s`: a name may hold any character; `.*` must cross all of them.
  return new RegExp(`^${body}$`, "s");
}
