/** `npm run gen:sdk`: rewrites plugins/sdk/host.d.ts from wit/ (see guest-types.ts). */
import { readFile, writeFile } from "node:fs/promises";
import { generateHostDts, HOST_DTS_PATH } from "./guest-types.js";

const text = await generateHostDts();
const before = await readFile(HOST_DTS_PATH, "utf8").catch(() => "");
if (before === text) {
  console.log("plugins/sdk/host.d.ts is up to date");
} else {
  await writeFile(HOST_DTS_PATH, text);
  console.log("plugins/sdk/host.d.ts rewritten from wit/");
}
