import assert from "node:assert/strict";
import { mkdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { after, before, it } from "node:test";
import { cliPlace, clawhiveIn, pendingWrite, type CliPlace } from "./fixtures.js";

let place: CliPlace;
const clawhive = (...args: string[]) => clawhiveIn(place, ...args);

before(async () => {
  place = await cliPlace("clawhive-cli-patterns-");
  await mkdir(join(place.agents, "workspace", "docs", "sub"), { recursive: true });
});
after(() => rm(place.root, { recursive: true, force: true }));

it("approve --pattern N --for: later calls it covers run without asking; patterns lists it; revoke ends it", async () => {
  const first = pendingWrite(place, { path: "/workspace/docs/a.md", content: "a" });
  const listed = clawhive("approvals", "list", "--run", first.run);
  assert.equal(listed.code, 0, listed.stderr);
  assert.match(listed.stdout, /patterns: +1\. files\.write_file path \/workspace\/docs\/a\.md; 2\. files\.write_file path \/workspace\/docs\/\*; 3\. files\.write_file path \/workspace\/docs\/\*\*/);

  // Bad usage first, each beside the control below: no such choice, no expiry, an unknown applies-to.
  const BAD: Array<[string[], RegExp]> = [
    [["--pattern", "9", "--for", "2h"], /--pattern 9: approval \S+ offers patterns 1 to 3/],
    [["--pattern", "3"], /--pattern needs --for/],
    [["--pattern", "3", "--for", "2h", "--applies-to", "all"], /--applies-to all: expected run or agent/],
    [["--pattern", "3", "--for", "90d"], /at most 30 days/],
  ];
  for (const [flags, message] of BAD) {
    const bad = clawhive("approvals", "approve", first.approval, ...flags, "--agents", place.agents);
    assert.equal(bad.code, 2, `${flags.join(" ")}: ${bad.stderr}`);
    assert.match(bad.stderr, message);
  }

  const approved = clawhive("approvals", "approve", first.approval, "--pattern", "3", "--for", "2h", "--applies-to", "agent", "--agents", place.agents);
  assert.equal(approved.code, 0, approved.stderr);
  const id = /by pattern (apt_\S+):/.exec(approved.stdout)?.[1];
  assert.ok(id, approved.stdout);
  assert.match(approved.stdout, /files\.write_file path \/workspace\/docs\/\*\*, every run of writer, until \d{4}-/);

  const covered = clawhive("call", "files.write_file", JSON.stringify({ path: "/workspace/docs/sub/b.md", content: "b" }), "--agent", "writer", "--agents", place.agents);
  assert.equal(covered.code, 0, covered.stderr);
  // A lookalike of the same folder asks a person.
  pendingWrite(place, { path: "/workspace/docs/../c.md", content: "c" });

  const patterns = clawhive("approvals", "patterns", "--json");
  assert.equal(patterns.code, 0, patterns.stderr);
  const shown = JSON.parse(patterns.stdout) as Array<{ id: string; matched: number; status: string }>;
  assert.deepEqual(shown.map((p) => [p.id, p.status, p.matched]), [[id, "active", 1]]);

  const revoked = clawhive("approvals", "revoke", id);
  assert.equal(revoked.code, 0, revoked.stderr);
  assert.match(revoked.stdout, /^revoked apt_\S+: files\.write_file path \/workspace\/docs\/\*\*; no later call matches it$/m);
  assert.equal(clawhive("approvals", "revoke", id).code, 1, "already revoked");
  pendingWrite(place, { path: "/workspace/docs/d.md", content: "d" });
});
