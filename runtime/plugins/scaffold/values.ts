/** What the templates are filled with. Paths are absolute: the scaffold lives anywhere. */
export interface ScaffoldValues {
  name: string;
  publisher: string;
  /** The SDK's folder (`plugins/sdk` of the clawhive package). */
  sdkDir: string;
  /** `bin/clawhive.js` of the clawhive that scaffolded the plugin. */
  bin: string;
  /** `docs/plugins.md` of that clawhive. */
  guide: string;
}
