// Terminal output handling that needs no editor: bounded buffering of a command's output, cleanup
// of what a pty sends (escape sequences, carriage-return redraws), and the decision whether the
// output is worth a diagnosis. Kept free of `vscode` imports so node's test runner can load it.

/** Keeps the last `limit` characters of a stream: a crash's traceback is at the end. */
export class OutputBuffer {
  private chunks: string[] = [];
  private length = 0;
  private droppedChars = 0;

  constructor(readonly limit: number) {
    if (!(limit > 0)) {
      throw new RangeError(`buffer limit must be positive, got ${limit}`);
    }
  }

  push(chunk: string): void {
    if (chunk.length === 0) {
      return;
    }
    if (chunk.length >= this.limit) {
      this.droppedChars += this.length + chunk.length - this.limit;
      this.chunks = [chunk.slice(chunk.length - this.limit)];
      this.length = this.limit;
      return;
    }
    this.chunks.push(chunk);
    this.length += chunk.length;
    while (this.length > this.limit) {
      const head = this.chunks[0];
      const excess = this.length - this.limit;
      if (head.length <= excess) {
        this.chunks.shift();
        this.length -= head.length;
        this.droppedChars += head.length;
      } else {
        this.chunks[0] = head.slice(excess);
        this.length -= excess;
        this.droppedChars += excess;
      }
    }
  }

  /** Characters dropped from the front to stay within the limit. */
  get dropped(): number {
    return this.droppedChars;
  }

  get size(): number {
    return this.length;
  }

  text(): string {
    if (this.chunks.length > 1) {
      this.chunks = [this.chunks.join("")];
    }
    return this.chunks[0] ?? "";
  }
}

const ESC = "\u001b";
const BEL = "\u0007";

/**
 * Turns raw pty output into the text a person sees: drops escape sequences (colours, cursor
 * moves, the shell-integration OSC 633 marks), replays `\r` redraws of progress bars so only the
 * final state of a line remains, applies backspaces, and normalises line endings to `\n`.
 */
export function cleanTerminalText(raw: string): string {
  const withoutEscapes = stripEscapes(raw);
  const lines = withoutEscapes.split("\n");
  return lines.map(replayLine).join("\n");
}

function stripEscapes(raw: string): string {
  let out = "";
  let i = 0;
  while (i < raw.length) {
    const ch = raw[i];
    if (ch === ESC) {
      i = skipEscape(raw, i);
      continue;
    }
    if (ch === "\u009b") {
      // 8-bit CSI
      i = skipCsiBody(raw, i + 1);
      continue;
    }
    if (ch === "\u009d") {
      // 8-bit OSC
      i = skipStringBody(raw, i + 1);
      continue;
    }
    out += ch;
    i += 1;
  }
  return out;
}

/** Index just past the escape sequence starting at `start` (which holds ESC). */
function skipEscape(raw: string, start: number): number {
  const kind = raw[start + 1];
  if (kind === undefined) {
    return start + 1;
  }
  switch (kind) {
    case "[":
      return skipCsiBody(raw, start + 2);
    case "]":
    case "P": // DCS
    case "X": // SOS
    case "^": // PM
    case "_": // APC
      return skipStringBody(raw, start + 2);
    case "(":
    case ")":
    case "*":
    case "+":
    case "#":
    case "%":
      // Character-set designation and similar: one more byte.
      return Math.min(raw.length, start + 3);
    default:
      return start + 2;
  }
}

/** CSI: parameter bytes 0x30-0x3F, intermediates 0x20-0x2F, one final byte 0x40-0x7E. */
function skipCsiBody(raw: string, from: number): number {
  let i = from;
  while (i < raw.length) {
    const code = raw.charCodeAt(i);
    if (code >= 0x40 && code <= 0x7e) {
      return i + 1;
    }
    if (code < 0x20 || code > 0x3f) {
      // Malformed: stop here and keep the rest as text.
      return i;
    }
    i += 1;
  }
  return i;
}

/** OSC/DCS/...: runs to BEL or ST (ESC \\). An unterminated one swallows at most one line. */
function skipStringBody(raw: string, from: number): number {
  for (let i = from; i < raw.length; i += 1) {
    const ch = raw[i];
    if (ch === BEL) {
      return i + 1;
    }
    if (ch === ESC && raw[i + 1] === "\\") {
      return i + 2;
    }
    if (ch === "\u009c") {
      return i + 1;
    }
    if (ch === "\n") {
      return i;
    }
  }
  return raw.length;
}

/** What a terminal shows for one line after `\r` redraws and backspaces. */
function replayLine(line: string): string {
  if (!line.includes("\r") && !line.includes("\b")) {
    return line;
  }
  let screen: string[] = [];
  let cursor = 0;
  for (const ch of line) {
    if (ch === "\r") {
      cursor = 0;
    } else if (ch === "\b") {
      cursor = Math.max(0, cursor - 1);
    } else {
      screen[cursor] = ch;
      cursor += 1;
    }
  }
  // A `\r\n` ending leaves the whole line; a redraw that was shorter keeps the longer tail, as a
  // terminal does.
  screen = Array.from(screen, (c) => c ?? " ");
  return screen.join("").replace(/\s+$/, "");
}

/**
 * Lines that PyTorch prints for DataLoader, worker and shared-memory failures (see PyTorch's
 * dataloader.py, _utils/worker.py, csrc/DataLoader.cpp, MapAllocator.cpp). Output holding one of
 * these is diagnosed even when the command exits 0 (a training loop that caught the error and
 * went on, or a wrapper script that swallows the exit code).
 */
const KNOWN_FAILURE_MARKERS: readonly RegExp[] = [
  /in DataLoader worker (?:process|thread) \d+/,
  /DataLoader worker \(pid(?:\(s\))? [\d, ]+\) (?:exited unexpectedly|is killed by signal)/,
  /ERROR: Unexpected (?:bus error|segmentation fault|floating-point exception) encountered in worker/,
  /Cannot re-initialize CUDA in forked subprocess/,
  /unable to (?:open|write to|mmap|resize) (?:shared memory object|file|\d+ bytes from file) <\/torch_/,
  /received 0 items of ancdata/,
  /Too many open files\. Communication with the workers is no longer possible/,
  /DataLoader timed out after \d+ seconds/,
  /Pin memory thread exited unexpectedly/,
  /Can't pickle local object|Can't get local object|Can't get attribute '.*' on <module '__main__'/,
  /(?:prefetch_factor|persistent_workers|timeout|num_workers|multiprocessing_context) option/,
  /option is mutually exclusive with/,
  /process \d+ terminated with (?:signal|exit code)/,
];

/** A Python traceback or a fatal error line: output of a failed run that may be a known one. */
const FAILURE_SHAPE = /Traceback \(most recent call last\)|^\w*(?:Error|Exception|Interrupt)\b.*:|Segmentation fault|Bus error|Killed/m;

export interface ExplainDecision {
  explain: boolean;
  reason: "known-failure" | "failed-with-traceback" | "nothing-to-explain" | "interrupted";
}

/**
 * Whether a finished command's output goes to the server. The server decides whether it holds a
 * known failure; this only avoids sending every `ls` typo: a failed command (non-zero exit code)
 * whose output has the shape of a crash, or any output holding a DataLoader failure line.
 * Ctrl-C (exit 130) is the user's own doing and is not diagnosed unless a known failure shows.
 */
export function decideExplain(exitCode: number | undefined, cleanText: string): ExplainDecision {
  if (KNOWN_FAILURE_MARKERS.some((marker) => marker.test(cleanText))) {
    return { explain: true, reason: "known-failure" };
  }
  if (exitCode === 130) {
    return { explain: false, reason: "interrupted" };
  }
  if (exitCode !== undefined && exitCode !== 0 && FAILURE_SHAPE.test(cleanText)) {
    return { explain: true, reason: "failed-with-traceback" };
  }
  return { explain: false, reason: "nothing-to-explain" };
}
