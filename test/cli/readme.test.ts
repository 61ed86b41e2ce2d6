/**
 * The README's walkthrough, run: every console block of README.md (and of the docs listed
 * below), in order, against a fresh data dir, each command through the real binary, its output
 * compared with the one shown after normalising (readme-blocks.ts). A block that cannot run here
 * says so in the Markdown (`<!-- readme-test: skip REASON -->`), and this test lists it.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { appendFile, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { PROJECT_ROOT } from "../../runtime/plugins/locations.js";
import { writeTestSecretKey } from "../helpers/secret-key.js";
import { BIN } from "./fixtures.js";
import { consoleBlocks, IdBindings, matches, normalise } from "./readme-blocks.js";

/**
 * The files whose console blocks run. docs/plugins.md is not among them: nearly every block
 * there builds a component (minutes each on a small machine); test/cli/plugin-authoring.test.ts
 * runs those commands.
 */
const FILES = ["README.md", "docs/skills-and-sub-agents.md", "docs/run-loop.md", "docs/api.md"];

let root: string;
let env: NodeJS.ProcessEnv;
const roots: string[] = [];

/** A fresh project folder and data dir for one file's walkthrough. */
async function freshPlace(): Promise<void> {
  root = await mkdtemp(join(tmpdir(), "clawhive-readme-"));
  roots.push(root);
  await mkdir(join(root, "project"));
  // The data dir is the project's own `.clawhive`, as on a fresh clone.
  await writeTestSecretKey(join(root, "project", ".clawhive"));
  env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("CLAWHIVE_") && name !== "NO_COLOR" && name !== "FORCE_COLOR"));
  Object.assign(env, {
    CLAWHIVE_DATA_DIR: join(root, "project", ".clawhive"),
    CLAWHIVE_BUILD_CACHE: process.env.CLAWHIVE_BUILD_CACHE ?? "",
    // The walkthrough's folders, under the test's own root.
    README_TMP: join(root, "tmp"),
    GITHUB_TOKEN: "ghp_readme0test0token0000000000000000",
    HOME: join(root, "home"),
    TERM: "dumb",
  });
  await mkdir(join(root, "tmp"));
  await mkdir(join(root, "home"));
  // The person at `memory edit`: writes a MEMORY.md and saves.
  const editor = join(root, "editor.sh");
  await writeFile(editor, "#!/bin/sh\nprintf '# Ada\\nShort replies.\\n' > \"$1\"\n", { mode: 0o755 });
  env.EDITOR = editor;
  env.VISUAL = editor;
}
after(() => Promise.all(roots.map((dir) => rm(dir, { recursive: true, force: true }))));

/** `clawhive` (also as `npx clawhive`) is the project's binary; `/tmp/` is the test's own folder. */
function shellOf(command: string): string {
  return `clawhive() { node ${JSON.stringify(BIN)} "$@"; }\n${command.replaceAll("npx clawhive", "clawhive").replaceAll("/tmp/", "$README_TMP/")}`;
}

function sh(script: string): Promise<string> {
  return new Promise((resolve) => {
    // A command that waits for input it will not get fails instead of hanging the test.
    const child = spawn("bash", ["-c", `${script} 2>&1`], { cwd: join(root, "project"), env, stdio: ["ignore", "pipe", "pipe"], timeout: 300_000 });
    let out = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr.on("data", (d: Buffer) => (out += d.toString()));
    child.on("close", () => resolve(out));
  });
}

for (const file of FILES) {
  describe(file, () => {
    const ids = new IdBindings();
    test("every console block runs and prints what it shows", async (t) => {
      await freshPlace();
      const blocks = consoleBlocks(await readFile(join(PROJECT_ROOT, file), "utf8"));
      assert.ok(blocks.length > 0);
      const failures: string[] = [];
      for (const block of blocks) {
        if (block.skip !== undefined) {
          assert.ok(block.skip.length > 0, `${file}:${block.line}: a skipped block says why`);
          t.diagnostic(`${file}:${block.line}: not run: ${block.skip}`);
          continue;
        }
        if (block.setup !== undefined) await sh(shellOf(block.setup));
        for (const step of block.steps) {
          const command = ids.translate(step.command);
          const output = (await sh(shellOf(command))).replaceAll(env.README_TMP!, "/tmp");
          ids.saw(output);
          // A command shown without output prints nothing.
          const printed = output.replace(/\n+$/, "");
          const actual = printed === "" ? [] : printed.split("\n").map(normalise);
          const expected = step.expected.map(normalise);
          if (process.env.README_TEST_RECORD) await appendFile(process.env.README_TEST_RECORD, `${JSON.stringify({ file, line: block.line, command: step.command, output })}\n`);
          if (!matches(expected, actual)) {
            failures.push(`${file}:${block.line}: $ ${step.command}\n--- shown\n${step.expected.join("\n")}\n--- printed\n${output}`);
          }
        }
      }
      assert.deepEqual(failures, [], failures.join("\n\n"));
    });
  });
}
