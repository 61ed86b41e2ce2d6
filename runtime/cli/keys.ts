/** `clawhive keys`: publisher keys — generate one to sign plugins; trust, list and revoke the keys installs accept. */
import { open } from "node:fs/promises";
import { userInfo } from "node:os";
import { InvalidInputError } from "../errors.js";
import { generatePublisherKey } from "../plugins/signing/index.js";
import { parseCommandArgs } from "./args.js";
import { SERVER_FLAGS, SERVER_FLAGS_HELP } from "./client.js";
import { withClient } from "./command-client.js";
import { inert, jsonOut } from "./render.js";
import { STORE_FLAGS, STORE_FLAGS_HELP } from "./store-path.js";

export const keysHelp = `clawhive keys — the Ed25519 keys that sign plugins, and which ones this runtime trusts

  clawhive keys generate --out FILE [--json]
  clawhive keys trust PUBLIC_KEY --publisher NAME
  clawhive keys list [--json]
  clawhive keys revoke KEY_ID

  generate: a publisher's new key pair. The private key is written to FILE (mode 0600, never
            overwritten) for 'clawhive plugin publish --key FILE'; the public key and its id
            are printed, for the operators who will trust it.
  trust:    plugins whose manifest names publisher NAME must from now on be signed by one of
            its trusted keys, from any source; a registry's plugins must be signed whatever
            their publisher. One key signs for one publisher.
  list:     the trusted keys, revoked ones with when and by whom.
  revoke:   plugins the key signed are refused from now on (installed ones stay until
            upgraded or removed). Final: a revoked key is never trusted again.
  Trust and revocation are 'plugin' audit records (action trust, revoke).

${SERVER_FLAGS_HELP}
${STORE_FLAGS_HELP}

  Exit codes: 0 ok; 1 an unexpected failure; 2 bad usage or refused (not a key, revoked, in use for another publisher).`;

interface KeyView {
  key_id: string;
  publisher: string;
  public_key: string;
  trusted_at: string;
  trusted_by: string;
  revoked_at: string | null;
  revoked_by: string | null;
}

const usage = "usage: clawhive keys generate --out FILE | trust PUBLIC_KEY --publisher NAME | list | revoke KEY_ID";

export async function keysCommand(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  switch (sub) {
    case "generate":
      return generate(rest);
    case "trust":
      return trust(rest);
    case "list":
      return list(rest);
    case "revoke":
      return revoke(rest);
    default:
      throw new InvalidInputError(sub === undefined ? usage : `unknown keys command '${sub}'; ${usage}`);
  }
}

async function generate(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, { out: { type: "string" }, json: { type: "boolean" } });
  if (typeof values.out !== "string" || positionals.length > 0) throw new InvalidInputError("usage: clawhive keys generate --out FILE", { field: "out" });
  const pair = generatePublisherKey();
  let file;
  try {
    file = await open(values.out, "wx", 0o600);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new InvalidInputError(code === "EEXIST" ? `--out ${values.out}: the file exists; a key file is never overwritten` : `--out ${values.out}: cannot create it (${code ?? "error"})`, { field: "out" });
  }
  try {
    await file.writeFile(pair.privateKeyPem);
  } finally {
    await file.close();
  }
  if (values.json === true) {
    console.log(jsonOut({ key_id: pair.keyId, public_key: pair.publicKey, private_key_file: values.out }));
    return 0;
  }
  console.log(`key ${pair.keyId}`);
  console.log(`  public key: ${pair.publicKey}`);
  console.log(`  private key: ${values.out} (mode 0600; keep it secret, sign with 'clawhive plugin publish --key ${values.out}')`);
  console.log(`  operators trust it with: clawhive keys trust ${pair.publicKey} --publisher PUBLISHER`);
  return 0;
}

async function trust(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, { ...STORE_FLAGS, ...SERVER_FLAGS, publisher: { type: "string" }, json: { type: "boolean" } });
  const [publicKey, ...extra] = positionals;
  if (!publicKey || extra.length > 0 || typeof values.publisher !== "string") throw new InvalidInputError("usage: clawhive keys trust PUBLIC_KEY --publisher NAME", { field: "publisher" });
  const answer = await withClient(values, (client) => client.request<{ action: string; key: KeyView }>("POST", "/v1/plugin-keys", { json: { public_key: publicKey, publisher: values.publisher } }), { pluginDirs: [], actor: cliPrincipal() });
  if (values.json === true) console.log(jsonOut(answer));
  else console.log(`${answer.action === "trusted" ? "trusted" : "already trusted:"} key ${answer.key.key_id} for publisher ${inert(answer.key.publisher)}`);
  return 0;
}

async function list(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, { ...STORE_FLAGS, ...SERVER_FLAGS, json: { type: "boolean" } });
  if (positionals.length > 0) throw new InvalidInputError("usage: clawhive keys list [--json]");
  const { keys } = await withClient(values, (client) => client.request<{ keys: KeyView[] }>("GET", "/v1/plugin-keys"), { pluginDirs: [], existing: true });
  if (values.json === true) {
    console.log(jsonOut(keys));
    return 0;
  }
  if (keys.length === 0) console.log("no keys trusted: plugins from a registry install only with --allow-unsigned");
  for (const key of keys) {
    const state = key.revoked_at === null ? `trusted ${key.trusted_at} by ${key.trusted_by}` : `REVOKED ${key.revoked_at} by ${key.revoked_by ?? "?"}`;
    console.log(`${key.key_id}  ${inert(key.publisher)}  ${state}\n  ${key.public_key}`);
  }
  return 0;
}

async function revoke(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, { ...STORE_FLAGS, ...SERVER_FLAGS });
  const [keyId, ...extra] = positionals;
  if (!keyId || extra.length > 0) throw new InvalidInputError("usage: clawhive keys revoke KEY_ID", { field: "key_id" });
  const { key } = await withClient(values, (client) => client.request<{ key: KeyView }>("POST", `/v1/plugin-keys/${encodeURIComponent(keyId.toLowerCase())}/revoke`), { pluginDirs: [], existing: true, actor: cliPrincipal() });
  console.log(`revoked key ${key.key_id} (publisher ${inert(key.publisher)}): plugins it signed are refused from now on`);
  return 0;
}

/** Who a trust or revocation made from this command line is audited as. */
function cliPrincipal(): string {
  try {
    return `cli:${userInfo().username || "unknown"}`;
  } catch {
    return `cli:${process.env.USER ?? "unknown"}`;
  }
}
