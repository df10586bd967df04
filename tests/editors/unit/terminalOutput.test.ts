import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { cleanTerminalText, decideExplain, OutputBuffer } from "../../../editors/vscode/src/terminalOutput";

describe("OutputBuffer", () => {
  it("keeps everything under the limit", () => {
    const buffer = new OutputBuffer(10);
    buffer.push("abc");
    buffer.push("");
    buffer.push("def");
    assert.equal(buffer.text(), "abcdef");
    assert.equal(buffer.size, 6);
    assert.equal(buffer.dropped, 0);
  });

  it("keeps the tail when chunks overflow", () => {
    const buffer = new OutputBuffer(5);
    for (const chunk of ["12", "34", "56", "7"]) {
      buffer.push(chunk);
    }
    assert.equal(buffer.text(), "34567");
    assert.equal(buffer.dropped, 2);
  });

  it("cuts into the oldest chunk, not just whole chunks", () => {
    const buffer = new OutputBuffer(4);
    buffer.push("abcdef".slice(0, 3));
    buffer.push("def");
    assert.equal(buffer.text(), "cdef");
    assert.equal(buffer.dropped, 2);
  });

  it("takes the tail of a single oversized chunk", () => {
    const buffer = new OutputBuffer(4);
    buffer.push("xy");
    buffer.push("0123456789");
    assert.equal(buffer.text(), "6789");
    assert.equal(buffer.dropped, 8);
    buffer.push("A");
    assert.equal(buffer.text(), "789A");
  });

  it("stays bounded over many chunks and keeps the traceback at the end", () => {
    const buffer = new OutputBuffer(1000);
    for (let i = 0; i < 10_000; i += 1) {
      buffer.push(`epoch 1: batch ${i}\n`);
    }
    buffer.push("RuntimeError: DataLoader worker (pid 42) is killed by signal: Bus error. \n");
    assert.ok(buffer.size <= 1000);
    assert.match(buffer.text(), /Bus error/);
  });

  it("refuses a non-positive limit", () => {
    assert.throws(() => new OutputBuffer(0), RangeError);
  });
});

describe("cleanTerminalText", () => {
  it("drops colour codes and normalises CRLF", () => {
    assert.equal(cleanTerminalText("\u001b[31mRuntimeError\u001b[0m: boom\r\nnext\r\n"), "RuntimeError: boom\nnext\n");
  });

  it("drops shell-integration OSC 633 marks ended by BEL or ST", () => {
    const raw = "\u001b]633;C\u0007Traceback (most recent call last):\r\n\u001b]633;D;1\u001b\\";
    assert.equal(cleanTerminalText(raw), "Traceback (most recent call last):\n");
  });

  it("keeps only the final state of a tqdm progress bar", () => {
    const raw = "  0%|          | 0/10\r 50%|#####     | 5/10\r100%|##########| 10/10\r\nRuntimeError: x\r\n";
    assert.equal(cleanTerminalText(raw), "100%|##########| 10/10\nRuntimeError: x\n");
  });

  it("overwrites like a terminal when the redraw is shorter", () => {
    assert.equal(cleanTerminalText("loading 100\rdone"), "doneing 100");
  });

  it("applies backspaces", () => {
    assert.equal(cleanTerminalText("abd\bc"), "abc");
  });

  it("drops cursor moves, charset designations and 8-bit CSI", () => {
    assert.equal(cleanTerminalText("\u001b[?25l\u001b(Bok\u009b2Kfine\u001b[K"), "okfine");
  });

  it("keeps text after an unterminated OSC on the next line", () => {
    assert.equal(cleanTerminalText("\u001b]0;title without end\nKeyError: 3"), "\nKeyError: 3");
  });

  it("keeps text after a malformed CSI", () => {
    assert.equal(cleanTerminalText("\u001b[12\u0001abc"), "\u0001abc");
  });

  it("keeps non-ASCII text", () => {
    assert.equal(cleanTerminalText("\u001b[1m错误\u001b[0m: 共享内存不足 🙂"), "错误: 共享内存不足 🙂");
  });
});

describe("decideExplain", () => {
  const traceback = [
    "Traceback (most recent call last):",
    '  File "/home/me/train.py", line 9, in <module>',
    "    main()",
    "ZeroDivisionError: division by zero",
  ].join("\n");

  it("explains a failed command that printed a traceback", () => {
    assert.deepEqual(decideExplain(1, traceback), { explain: true, reason: "failed-with-traceback" });
  });

  it("leaves a failed command without a crash alone", () => {
    assert.deepEqual(decideExplain(2, "ls: cannot access 'x': No such file or directory"), {
      explain: false,
      reason: "nothing-to-explain",
    });
    assert.equal(decideExplain(127, "bash: pyhton: command not found").explain, false);
  });

  it("leaves a successful command alone", () => {
    assert.equal(decideExplain(0, "epoch 3 loss 0.12").explain, false);
    assert.equal(decideExplain(undefined, traceback).explain, false);
  });

  it("explains a known DataLoader failure even with exit code 0", () => {
    const worker = "ERROR: Unexpected bus error encountered in worker. This might be caused by insufficient shared memory (shm).";
    assert.deepEqual(decideExplain(0, worker), { explain: true, reason: "known-failure" });
    assert.equal(decideExplain(undefined, "RuntimeError: DataLoader worker (pid(s) 123, 456) exited unexpectedly").explain, true);
    assert.equal(decideExplain(0, "KeyError: Caught KeyError in DataLoader worker process 0.").explain, true);
    assert.equal(decideExplain(0, "ValueError: persistent_workers option needs num_workers > 0").explain, true);
  });

  it("does not treat Ctrl-C as a crash, unless a known failure shows", () => {
    assert.deepEqual(decideExplain(130, `${traceback}\nKeyboardInterrupt`), { explain: false, reason: "interrupted" });
    assert.equal(decideExplain(130, "RuntimeError: DataLoader worker (pid 7) is killed by signal: Killed. ").explain, true);
  });
});
