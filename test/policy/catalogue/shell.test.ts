import assert from "node:assert/strict";
import { test } from "node:test";
import { capabilityCovers, capabilityMatches } from "../../../runtime/policy/catalogue/index.js";
import { resource } from "./_resource.js";

const GRANT = resource("shell.exec", {
  mounts: [{ guest: "/work", host: "/data/ws", mode: "rw" }],
  commands: [
    { name: "git", subcommands: ["status", "log", "diff"], deny: ["--output*", "--ext-diff", "-c"] },
    { name: "rg", deny: ["--pre*"] },
    { name: "npm", subcommands: ["test"], flags: ["--silent", "--workspace"] },
  ],
});

// [what, argv, cwd, reason or undefined for allowed]: adversarial rows beside their controls.
const REQUESTS: [string, string[], string | undefined, string | undefined][] = [
  ["granted subcommand", ["git", "status"], "/work", undefined],
  ["global option before the subcommand", ["git", "-c", "core.pager=sh", "status"], undefined, "subcommand-not-allowed"],
  ["ungranted subcommand", ["git", "push"], undefined, "subcommand-not-allowed"],
  ["no subcommand at all", ["git"], undefined, "subcommand-not-allowed"],
  ["denied option", ["git", "log", "--output=/work/x"], undefined, "argument-denied"],
  ["denied option after --", ["git", "diff", "--", "--ext-diff"], undefined, "argument-denied"],
  ["ordinary option", ["git", "log", "--oneline"], undefined, undefined],
  ["rg with a preprocessor", ["rg", "TODO", "--pre=sh"], undefined, "argument-denied"],
  ["rg without one", ["rg", "--json", "TODO"], undefined, undefined],
  ["unlisted flag", ["npm", "test", "--prefix=/"], undefined, "flag-not-allowed"],
  ["listed flag with a value", ["npm", "test", "--workspace=pkg"], undefined, undefined],
  ["unlisted flag late in argv", ["npm", "test", "--silent", "--ignore-scripts"], undefined, "flag-not-allowed"],
  ["after -- nothing is a flag", ["npm", "test", "--", "--grep", "x"], undefined, undefined],
  ["ungranted command", ["bash", "-c", "id"], undefined, "command-not-allowed"],
  ["a path, not a name", ["/usr/bin/git", "status"], undefined, "command-not-allowed"],
  ["a name with a path prefix", ["./git", "status"], undefined, "command-not-allowed"],
  ["empty argv", [], undefined, "invalid-argument"],
  ["control character in an argument", ["rg", "a\u0000b"], undefined, "invalid-argument"],
  ["cwd outside the mounts", ["git", "status"], "/etc", "cwd-outside-mount"],
  ["cwd escaping with ..", ["git", "status"], "/work/../etc", "cwd-outside-mount"],
  ["cwd inside", ["git", "status"], "/work/sub", undefined],
];

for (const [what, argv, cwd, reason] of REQUESTS) {
  test(`shell.exec matches: ${what} → ${reason ?? "allow"}`, () => {
    const decision = capabilityMatches("shell.exec", GRANT, { argv, cwd });
    if (reason === undefined) assert.deepEqual(decision, { allow: true });
    else assert.equal(decision.allow ? "allow" : decision.denial.reason, reason, decision.allow ? "" : decision.denial.message);
  });
}

const narrower = (commands: unknown, extra: Record<string, unknown> = {}) =>
  resource("shell.exec", { mounts: [{ guest: "/work/src", host: "/data/ws/src", mode: "ro" }], commands, ...extra });

// [what, inner, failure path or undefined when covered]
const COVERS: [string, ReturnType<typeof narrower>, string | undefined][] = [
  ["a subset of commands and subcommands", narrower([{ name: "git", subcommands: ["status"], deny: ["--output*", "--ext-diff", "-c"] }]), undefined],
  ["a command the outer lacks", narrower([{ name: "curl" }]), "commands[0].name"],
  ["a subcommand the outer lacks", narrower([{ name: "git", subcommands: ["push"], deny: ["--output*", "--ext-diff", "-c"] }]), "commands[0].subcommands[0]"],
  ["dropping the subcommand list", narrower([{ name: "git", deny: ["--output*", "--ext-diff", "-c"] }]), "commands[0].subcommands"],
  ["dropping a deny pattern", narrower([{ name: "git", subcommands: ["status"], deny: ["--output*", "-c"] }]), "commands[0].deny"],
  ["a broader deny pattern", narrower([{ name: "git", subcommands: ["status"], deny: ["--*", "-c"] }]), undefined],
  ["a flag the outer lacks", narrower([{ name: "npm", subcommands: ["test"], flags: ["--prefix"] }]), "commands[0].flags[0]"],
  ["flags within the outer's", narrower([{ name: "npm", subcommands: ["test"], flags: ["--silent"] }]), undefined],
  ["turning the sandbox off", narrower([{ name: "rg", deny: ["--pre*"] }], { sandbox: false }), "sandbox"],
  ["a mount outside", resource("shell.exec", { mounts: [{ guest: "/etc", host: "/etc" }], commands: [{ name: "rg", deny: ["--pre*"] }] }), "mounts[0]"],
];

for (const [what, inner, failure] of COVERS) {
  test(`shell.exec covers: ${what} → ${failure === undefined ? "covered" : `not covered at ${failure}`}`, () => {
    const result = capabilityCovers("shell.exec", GRANT, inner);
    if (failure === undefined) assert.deepEqual(result, { covered: true });
    else assert.equal(result.covered ? "covered" : result.path, failure);
  });
}
