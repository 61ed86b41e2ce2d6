import { InvalidInputError } from "../errors.js";

export const NAME_PATTERN = /^[a-z][a-z0-9_-]{0,63}$/;
export const MAX_VALUE_BYTES = 64 * 1024;

/**
 * A secret name is an identifier, not data. A bad one is not echoed: people sometimes paste a
 * value where the name goes, and the message would print it.
 */
export function checkSecretName(name: string): string {
  if (typeof name !== "string" || !NAME_PATTERN.test(name)) {
    const length = typeof name === "string" ? `${name.length} characters` : typeof name;
    throw new InvalidInputError(
      `secret name: must match ${NAME_PATTERN.source} — lower case letters, digits, _ and -, starting with a letter, at most 64 (e.g. openai_api_key); got ${length}`,
      { field: "name" },
    );
  }
  return name;
}

/** Values are text: non-empty, well-formed Unicode (a lone surrogate would not survive UTF-8), at most 64 KiB. */
export function checkSecretValue(name: string, value: string): string {
  if (typeof value !== "string" || value === "") {
    throw new InvalidInputError(`secret ${name}: the value is empty`, { field: "value" });
  }
  if (!value.isWellFormed()) {
    throw new InvalidInputError(`secret ${name}: the value is not well-formed Unicode text (a lone surrogate); base64-encode binary secrets`, { field: "value" });
  }
  const bytes = Buffer.byteLength(value, "utf8");
  if (bytes > MAX_VALUE_BYTES) {
    throw new InvalidInputError(`secret ${name}: the value is ${bytes} bytes, more than the ${MAX_VALUE_BYTES} allowed`, { field: "value" });
  }
  return value;
}
