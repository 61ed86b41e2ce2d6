/** A runtime's secrets, and the list of their values the audit log redacts. */
import type { RuntimeState } from "./state.js";

/** Stores a secret (encrypted) and adds its value to what the audit log redacts. */
export async function setSecret(s: RuntimeState, name: string, value: string): Promise<void> {
  await s.secrets.set(name, value);
  await refreshSecrets(s);
}

export async function removeSecret(s: RuntimeState, name: string): Promise<boolean> {
  const removed = await s.secrets.remove(name);
  await refreshSecrets(s);
  return removed;
}

/** Re-reads every secret value (another process may have changed them). */
export async function refreshSecrets(s: RuntimeState): Promise<void> {
  s.secretList.current = await s.secrets.values();
}

/** The value of secret `name`, for a host proxy on the main thread; it is redacted from now on. */
export async function secretValue(s: RuntimeState, name: string): Promise<string> {
  const value = await s.secrets.get(name);
  if (!s.secretList.current.includes(value)) s.secretList.current = [...s.secretList.current, value];
  return value;
}
