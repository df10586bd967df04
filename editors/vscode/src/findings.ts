// The diagnosis the server returns for `dldoctor.explain`, and how it reads as markdown.
// No `vscode` imports: unit-tested with node's test runner.

export interface Frame {
  file: string;
  line: number;
  function?: string | null;
  user: boolean;
}

/** A workaround or a dead end: the server sends knowledge-base objects; plain strings also read. */
export type Advice =
  | string
  | {
      action?: string | null;
      how?: string | null;
      why_fails?: string | null;
      condition?: string | null;
      success_rate?: number | null;
      fail_rate?: number | null;
      fix?: string | null;
    };

export interface Finding {
  id: string;
  title: string;
  line?: number | null;
  matched?: string | null;
  root_cause?: string | null;
  workarounds?: Advice[] | null;
  dead_ends?: Advice[] | null;
  rules?: string[] | null;
  frames?: Frame[] | null;
}

export interface ExplainResult {
  findings: Finding[];
}

/** Accepts what the server sent, dropping anything that is not a finding. */
export function parseExplainResult(value: unknown): ExplainResult {
  if (typeof value !== "object" || value === null) {
    return { findings: [] };
  }
  const findings = (value as { findings?: unknown }).findings;
  if (!Array.isArray(findings)) {
    return { findings: [] };
  }
  return {
    findings: findings.filter(
      (f): f is Finding =>
        typeof f === "object" && f !== null && typeof f.id === "string" && typeof f.title === "string",
    ),
  };
}

/**
 * The frame to send the user to: the innermost frame in the user's own files. Frames come in
 * traceback order (outermost first), so that is the last user frame.
 */
export function userFrame(finding: Finding): Frame | undefined {
  const frames = finding.frames ?? [];
  for (let i = frames.length - 1; i >= 0; i -= 1) {
    const frame = frames[i];
    if (frame.user && typeof frame.file === "string" && Number.isInteger(frame.line) && frame.line > 0) {
      return frame;
    }
  }
  return undefined;
}

function adviceText(advice: Advice, kind: "workaround" | "dead_end"): string {
  if (typeof advice === "string") {
    return advice;
  }
  const action = (advice.action ?? "").trim();
  const parts: string[] = [action];
  if (kind === "workaround") {
    const how = (advice.how ?? "").trim();
    if (how && how !== action) {
      parts.push(`— ${how}`);
    }
  } else {
    const why = (advice.why_fails ?? "").trim();
    if (why) {
      parts.push(`— ${why}`);
    }
  }
  const condition = (advice.condition ?? "").trim();
  if (condition) {
    parts.push(`(when: ${condition})`);
  }
  return parts.filter(Boolean).join(" ");
}

/** Keeps a value from breaking out of an inline code span. */
function inlineCode(text: string): string {
  const longestRun = Math.max(0, ...Array.from(text.matchAll(/`+/g), (m) => m[0].length));
  const fence = "`".repeat(longestRun + 1);
  const pad = text.startsWith("`") || text.endsWith("`") ? " " : "";
  return `${fence}${pad}${text}${pad}${fence}`;
}

/** A readable page: cause, what fixes it, what does not, and where in the user's code. */
export function renderFindingsMarkdown(result: ExplainResult, source?: string): string {
  const out: string[] = [];
  if (result.findings.length === 0) {
    out.push("# dldoctor", "", "No known DataLoader failure found in this output.");
    return out.join("\n") + "\n";
  }
  result.findings.forEach((finding, index) => {
    if (index > 0) {
      out.push("", "---", "");
    }
    out.push(`# ${finding.title}`, "");
    out.push(`Knowledge-base entry ${inlineCode(finding.id)}${source ? ` · from ${source}` : ""}`, "");
    if (finding.matched) {
      out.push("Matched line:", "", "```text", finding.matched, "```", "");
    }
    const frame = userFrame(finding);
    if (frame) {
      const where = frame.function ? ` in ${inlineCode(frame.function)}` : "";
      out.push(`**Your code:** ${inlineCode(`${frame.file}:${frame.line}`)}${where}`, "");
    }
    if (finding.root_cause) {
      out.push("## Cause", "", finding.root_cause.trim(), "");
    }
    const workarounds = (finding.workarounds ?? []).map((w) => adviceText(w, "workaround")).filter(Boolean);
    if (workarounds.length > 0) {
      out.push("## What fixes it", "", ...workarounds.map((w) => `- ${w}`), "");
    }
    const deadEnds = (finding.dead_ends ?? []).map((d) => adviceText(d, "dead_end")).filter(Boolean);
    if (deadEnds.length > 0) {
      out.push("## What does not", "", ...deadEnds.map((d) => `- Don't: ${d}`), "");
    }
    const rules = finding.rules ?? [];
    if (rules.length > 0) {
      out.push(`Rules that catch this before it runs: ${rules.map(inlineCode).join(", ")}`, "");
    }
  });
  return out.join("\n").replace(/\n+$/, "") + "\n";
}

/** One line for a notification: the failure's name and where it points. */
export function notificationText(finding: Finding): string {
  const frame = userFrame(finding);
  const where = frame ? ` (${baseName(frame.file)}:${frame.line})` : "";
  return `dldoctor: ${finding.title}${where}`;
}

function baseName(path: string): string {
  const parts = path.split(/[\\/]/);
  return parts[parts.length - 1] || path;
}

/** A fact's value in one table cell: nested objects as `key: value` pairs. */
function factText(value: unknown): string {
  if (value === null || value === undefined) {
    return "unknown";
  }
  if (Array.isArray(value)) {
    return value.length === 0 ? "—" : value.map(factText).join("; ");
  }
  if (typeof value === "object") {
    return Object.entries(value as Record<string, unknown>)
      .map(([key, inner]) => `${key}: ${factText(inner)}`)
      .join(", ");
  }
  return String(value);
}

/** This machine's facts (the server's `dldoctor.env`) as a table. */
export function renderEnvMarkdown(facts: unknown): string {
  const lines = ["# This machine", ""];
  if (typeof facts === "object" && facts !== null && !Array.isArray(facts)) {
    lines.push("| fact | value |", "| --- | --- |");
    for (const [key, value] of Object.entries(facts)) {
      lines.push(`| ${key} | ${factText(value).replace(/\|/g, "\\|")} |`);
    }
  } else {
    lines.push("```json", JSON.stringify(facts, null, 2) ?? "null", "```");
  }
  return lines.join("\n") + "\n";
}
