import assert from "node:assert/strict";
import { describe, it } from "node:test";

import {
  type Finding,
  notificationText,
  parseExplainResult,
  renderEnvMarkdown,
  renderFindingsMarkdown,
  userFrame,
} from "../../../editors/vscode/src/findings";

const finding: Finding = {
  id: "pytorch/dataloader-shm-bus-error",
  title: "DataLoader worker killed by SIGBUS: shared memory exhausted",
  line: 12,
  matched: "RuntimeError: DataLoader worker (pid 77) is killed by signal: Bus error. ",
  root_cause: "Workers pass batches through /dev/shm, which is too small here.",
  workarounds: [
    { action: "Give the container more shared memory", how: "docker run --shm-size=8g", condition: "Docker" },
    "Lower num_workers",
  ],
  dead_ends: [{ action: "Set pin_memory=False", why_fails: "pinning is not what fills /dev/shm" }],
  rules: ["DL203", "DL202"],
  frames: [
    { file: "/work/proj/train.py", line: 30, function: "<module>", user: true },
    { file: "/work/proj/train.py", line: 21, function: "main", user: true },
    { file: "/usr/lib/python3/site-packages/torch/utils/data/dataloader.py", line: 1480, function: "_next_data", user: false },
  ],
};

describe("parseExplainResult", () => {
  it("keeps well-formed findings and drops the rest", () => {
    const parsed = parseExplainResult({ findings: [finding, { id: 3 }, null, "x"] });
    assert.equal(parsed.findings.length, 1);
    assert.equal(parsed.findings[0].id, finding.id);
  });

  it("reads anything else as no findings", () => {
    for (const value of [null, undefined, 42, "text", [], { findings: "no" }]) {
      assert.deepEqual(parseExplainResult(value), { findings: [] });
    }
  });
});

describe("userFrame", () => {
  it("is the innermost frame in the user's files", () => {
    assert.deepEqual(userFrame(finding), finding.frames?.[1]);
  });

  it("is undefined without user frames", () => {
    assert.equal(userFrame({ ...finding, frames: [finding.frames![2]] }), undefined);
    assert.equal(userFrame({ id: "x", title: "y" }), undefined);
  });

  it("skips frames with unusable line numbers", () => {
    const frames = [{ file: "a.py", line: 4, user: true }, { file: "b.py", line: 0, user: true }];
    assert.equal(userFrame({ id: "x", title: "y", frames })?.file, "a.py");
  });
});

describe("renderFindingsMarkdown", () => {
  const page = renderFindingsMarkdown({ findings: [finding] }, "terminal");

  it("has the cause, the workarounds, the dead ends and the user's frame", () => {
    assert.match(page, /^# DataLoader worker killed by SIGBUS/);
    assert.match(page, /## Cause\n\nWorkers pass batches/);
    assert.match(page, /- Give the container more shared memory — docker run --shm-size=8g \(when: Docker\)/);
    assert.match(page, /- Lower num_workers/);
    assert.match(page, /## What does not\n\n- Don't: Set pin_memory=False — pinning is not what fills/);
    assert.match(page, /\*\*Your code:\*\* `\/work\/proj\/train.py:21` in `main`/);
    assert.match(page, /`DL203`, `DL202`/);
    assert.match(page, /```text\nRuntimeError: DataLoader worker \(pid 77\)/);
  });

  it("says so when nothing is known", () => {
    assert.match(renderFindingsMarkdown({ findings: [] }), /No known DataLoader failure/);
  });

  it("keeps backticks in values from breaking the code spans", () => {
    const odd = renderFindingsMarkdown({ findings: [{ id: "a`b", title: "t" }] });
    assert.match(odd, /``a`b``/);
  });

  it("separates several findings", () => {
    const two = renderFindingsMarkdown({ findings: [finding, { id: "other", title: "Other" }] });
    assert.match(two, /\n---\n\n# Other/);
  });
});

describe("notificationText", () => {
  it("names the failure and the user's line", () => {
    assert.equal(
      notificationText(finding),
      "dldoctor: DataLoader worker killed by SIGBUS: shared memory exhausted (train.py:21)",
    );
  });
});

describe("renderEnvMarkdown", () => {
  it("renders facts as a table, nested values as key: value pairs", () => {
    const page = renderEnvMarkdown({
      os: "linux",
      cpus: { usable: 1, source: "assumed" },
      notes: [],
      container: null,
      odd: "a|b",
    });
    assert.match(page, /^# This machine\n\n\| fact \| value \|\n\| --- \| --- \|\n/);
    assert.match(page, /\| os \| linux \|/);
    assert.match(page, /\| cpus \| usable: 1, source: assumed \|/);
    assert.match(page, /\| notes \| — \|/);
    assert.match(page, /\| container \| unknown \|/);
    assert.match(page, /\| odd \| a\\\|b \|/);
  });

  it("shows anything else as JSON", () => {
    assert.match(renderEnvMarkdown(null), /```json\nnull\n```/);
  });
});
