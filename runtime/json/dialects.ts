/**
 * The JSON Schema dialects a tool's schema may be written in, each validated by its own ajv:
 * draft-04 (ajv-draft-04), draft-06 and draft-07 (ajv), 2019-09 (Ajv2019) and 2020-12
 * (Ajv2020). A schema names its dialect with `$schema`; one without it is read in its source's
 * default — 2020-12 for an MCP server's tools (MCP 2025-11-25, SEP-1613: "Embedded JSON schemas
 * within MCP messages MUST conform to JSON Schema 2020-12 when no $schema field is present"),
 * draft-07 for a plugin's (what clawhive's plugin contract and typed components have always
 * given). A `$schema` naming anything else is refused: an unknown dialect cannot be validated,
 * and guessing would check other rules than the tool's author meant.
 */
import { Ajv, type Options } from "ajv";
import { Ajv2019 } from "ajv/dist/2019.js";
import { Ajv2020 } from "ajv/dist/2020.js";
import draft6MetaSchema from "ajv/dist/refs/json-schema-draft-06.json" with { type: "json" };
import ajvDraft04 from "ajv-draft-04";
import { uniqueItems } from "./unique-items.js";

/** ajv-draft-04 is CommonJS: its class is the module itself, and its `default` too. */
const Ajv04 = ajvDraft04.default;

/** What is used of a dialect's ajv. */
export type SchemaCompiler = Pick<Ajv, "compile" | "removeSchema" | "removeKeyword" | "addKeyword" | "addMetaSchema">;

export type SchemaDialect = "draft-04" | "draft-06" | "draft-07" | "2019-09" | "2020-12";

/** What a tool without `$schema` is read as: an MCP server's (the MCP spec's default) and a plugin's. */
export const MCP_SCHEMA_DIALECT: SchemaDialect = "2020-12";
export const PLUGIN_SCHEMA_DIALECT: SchemaDialect = "draft-07";

/** Each dialect's meta-schema URI, as `$schema` names it (without a trailing `#`). */
const URIS: Readonly<Record<SchemaDialect, string>> = {
  "draft-04": "http://json-schema.org/draft-04/schema",
  "draft-06": "http://json-schema.org/draft-06/schema",
  "draft-07": "http://json-schema.org/draft-07/schema",
  "2019-09": "https://json-schema.org/draft/2019-09/schema",
  "2020-12": "https://json-schema.org/draft/2020-12/schema",
};

/** Each dialect's meta-schema id as its ajv knows it: what a schema's `$schema` is compiled as. */
export const META_SCHEMA_IDS: Readonly<Record<SchemaDialect, string>> = {
  "draft-04": `${URIS["draft-04"]}#`,
  "draft-06": `${URIS["draft-06"]}#`,
  "draft-07": `${URIS["draft-07"]}#`,
  "2019-09": URIS["2019-09"],
  "2020-12": URIS["2020-12"],
};

export type DialectChoice = { ok: true; dialect: SchemaDialect } | { ok: false; message: string };

/** The dialect `schema` declares (`$schema`; `https:` and `http:`, with or without `#`, alike), or `fallback`. */
export function dialectOf(schema: object, fallback: SchemaDialect): DialectChoice {
  if (!Object.hasOwn(schema, "$schema")) return { ok: true, dialect: fallback };
  const declared = (schema as { $schema?: unknown }).$schema;
  if (typeof declared !== "string") return { ok: false, message: "$schema must be a string naming a JSON Schema dialect" };
  const uri = declared.trim().replace(/#$/, "").replace(/^https?:/, "");
  const found = (Object.keys(URIS) as SchemaDialect[]).find((d) => URIS[d].replace(/^https?:/, "") === uri);
  if (found !== undefined) return { ok: true, dialect: found };
  return { ok: false, message: `its $schema ${JSON.stringify(declared.slice(0, 200))} names a JSON Schema dialect clawhive cannot validate; use draft-04, draft-06, draft-07, 2019-09 or 2020-12 (${Object.values(URIS).map((u) => `${u}#`).join(", ")})` };
}

const instances = new Map<string, SchemaCompiler>();

/**
 * The ajv of `dialect`, made on first use (each compiles its meta-schema, ~100 ms). `checkMeta`:
 * schemas are checked against the dialect's meta-schema as they compile (at install and review);
 * without it they are trusted to have been (an installed plugin's, on each load).
 */
export function ajvFor(dialect: SchemaDialect, options: Options & { checkMeta: boolean }): SchemaCompiler {
  const key = `${dialect}:${options.checkMeta}`;
  let ajv = instances.get(key);
  if (ajv === undefined) {
    const { checkMeta, ...rest } = options;
    const settings: Options = { ...rest, validateSchema: checkMeta };
    ajv = create(dialect, settings);
    ajv.removeKeyword("uniqueItems");
    ajv.addKeyword(uniqueItems);
    instances.set(key, ajv);
  }
  return ajv;
}

function create(dialect: SchemaDialect, options: Options): SchemaCompiler {
  switch (dialect) {
    case "draft-04":
      return new Ajv04(options);
    case "draft-06": {
      const ajv = new Ajv(options);
      ajv.addMetaSchema(draft6MetaSchema);
      return ajv;
    }
    case "draft-07":
      return new Ajv(options);
    case "2019-09":
      return new Ajv2019(options);
    case "2020-12":
      return new Ajv2020(options);
  }
}
