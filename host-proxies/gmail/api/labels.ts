/**
 * Gmail label names ↔ ids. Grants name labels (`Work/*`); the API speaks ids (`INBOX` for
 * system labels, `Label_12` for user ones). The list is cached for a short time and reloaded
 * when a message carries an id the cache has not seen (a label created since). An id that is
 * still unknown is reported as itself, which can only match a grant that names it.
 */

export interface GmailLabel {
  id: string;
  name: string;
}

export interface LabelDirectoryOptions {
  /** How long a loaded list is trusted. Default 60 s. */
  ttlMs?: number;
  now?: () => number;
}

interface Loaded {
  at: number;
  byName: Map<string, string>;
  byId: Map<string, string>;
}

export class LabelDirectory {
  readonly #load: () => Promise<GmailLabel[]>;
  readonly #ttlMs: number;
  readonly #now: () => number;
  #loaded: Loaded | undefined;
  #loading: Promise<void> | undefined;

  constructor(load: () => Promise<GmailLabel[]>, options: LabelDirectoryOptions = {}) {
    this.#load = load;
    this.#ttlMs = options.ttlMs ?? 60_000;
    this.#now = options.now ?? Date.now;
  }

  async idFor(name: string): Promise<string | undefined> {
    return (await this.#current(false)).byName.get(name);
  }

  async namesFor(ids: readonly string[]): Promise<string[]> {
    let current = await this.#current(false);
    if (ids.some((id) => !current.byId.has(id))) current = await this.#current(true);
    return ids.map((id) => current.byId.get(id) ?? id);
  }

  async #current(refresh: boolean): Promise<Loaded> {
    const fresh = this.#loaded !== undefined && this.#now() - this.#loaded.at < this.#ttlMs;
    if (!fresh || refresh) {
      this.#loading ??= this.#reload().finally(() => (this.#loading = undefined));
      await this.#loading;
    }
    return this.#loaded as Loaded;
  }

  async #reload(): Promise<void> {
    const labels = await this.#load();
    const byName = new Map<string, string>();
    const byId = new Map<string, string>();
    for (const { id, name } of labels) {
      byName.set(name, id);
      byId.set(id, name);
    }
    this.#loaded = { at: this.#now(), byName, byId };
  }
}
