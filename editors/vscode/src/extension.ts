// The dldoctor extension: starts `dldoctor lsp`, watches integrated terminals for crashed
// training runs, and turns a diagnosis into a notification, a readable page and a fix.
import { execFile } from "node:child_process";
import * as fs from "node:fs/promises";
import * as vscode from "vscode";
import {
  ExecuteCommandRequest,
  LanguageClient,
  type LanguageClientOptions,
  type ServerOptions,
  State,
} from "vscode-languageclient/node";

import { type ExplainResult, type Finding, notificationText, parseExplainResult, userFrame } from "./findings";
import { ExplainView } from "./explainView";
import { findServer } from "./serverPath";
import { cleanTerminalText, decideExplain, type ExplainDecision, OutputBuffer } from "./terminalOutput";

/** Output kept per terminal command; a traceback is at the end of it. */
const TERMINAL_OUTPUT_LIMIT = 512 * 1024;
/** The tail of a log file read by "Explain a log file". */
const LOG_FILE_LIMIT = 4 * 1024 * 1024;
/** How long to wait for the server's diagnostics on a file opened to find a fix. */
const DIAGNOSTICS_WAIT_MS = 4000;
/** The source of the diagnostics the server places on the user's frames after a diagnosis. */
const EXPLAIN_SOURCE = "dldoctor-explain";

let extension: DldoctorExtension | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  extension = new DldoctorExtension(context);
  context.subscriptions.push(extension);
  await extension.startServer();
}

export async function deactivate(): Promise<void> {
  await extension?.stopServer();
  extension = undefined;
}

interface Origin {
  /** Where the text came from, for the page and the test hook. */
  source: "terminal" | "terminal-selection" | "editor-selection" | "clipboard" | "file";
  cwd?: string;
  commandLine?: string;
  exitCode?: number;
  decision?: ExplainDecision;
}

interface AvailableFix {
  action: vscode.CodeAction;
  uri: vscode.Uri;
}

class DldoctorExtension implements vscode.Disposable {
  private client: LanguageClient | undefined;
  private readonly log: vscode.LogOutputChannel;
  private readonly view = new ExplainView();
  private readonly disposables: vscode.Disposable[] = [];
  /** Cleaned output of the last finished command per terminal, for "Explain terminal selection" without a selection. */
  private readonly lastOutput = new WeakMap<vscode.Terminal, { text: string; cwd?: string }>();

  constructor(private readonly context: vscode.ExtensionContext) {
    this.log = vscode.window.createOutputChannel("dldoctor", { log: true });
    this.disposables.push(
      this.log,
      this.view,
      vscode.commands.registerCommand("dldoctor.explainTerminalSelection", () => this.explainTerminalSelection()),
      vscode.commands.registerCommand("dldoctor.explainSelection", () => this.explainEditorSelection()),
      vscode.commands.registerCommand("dldoctor.explainClipboard", () => this.explainClipboard()),
      vscode.commands.registerCommand("dldoctor.explainFile", (uri?: vscode.Uri) => this.explainFile(uri)),
      vscode.commands.registerCommand("dldoctor.showEnv", () => this.showEnv()),
      vscode.commands.registerCommand("dldoctor.restartServer", () => this.restartServer()),
      vscode.workspace.onDidChangeConfiguration((event) => {
        if (event.affectsConfiguration("dldoctor.path")) {
          void this.restartServer();
        }
      }),
    );
    this.watchTerminals();
    this.disposables.push(...watchNotebooksForTests());
  }

  dispose(): void {
    for (const disposable of this.disposables.splice(0)) {
      disposable.dispose();
    }
  }

  // ---- the server -------------------------------------------------------------------------

  async startServer(): Promise<void> {
    const config = vscode.workspace.getConfiguration("dldoctor");
    const lookup = findServer({
      setting: config.get<string | null>("path"),
      extensionPath: this.context.extensionPath,
      interpreter: await activePythonInterpreter(this.log),
      pathEnv: process.env.PATH,
    });
    if (!lookup.found) {
      this.log.error(lookup.message);
      void vscode.window.showErrorMessage(lookup.message, "Open Settings").then((choice) => {
        if (choice === "Open Settings") {
          void vscode.commands.executeCommand("workbench.action.openSettings", "dldoctor.path");
        }
      });
      return;
    }
    this.log.info(`using ${await binaryVersion(lookup.path)} at ${lookup.path} (from the ${lookup.source})`);
    const serverOptions: ServerOptions = {
      command: lookup.path,
      args: ["lsp"],
      options: { env: { ...process.env, RUST_LOG: process.env.RUST_LOG ?? "warn" } },
    };
    const clientOptions: LanguageClientOptions = {
      documentSelector: [
        { scheme: "file", language: "python" },
        { scheme: "untitled", language: "python" },
        // Python cells of notebooks (the server syncs them as notebooks).
        { scheme: "vscode-notebook-cell", language: "python" },
      ],
      initializationOptions: serverSettings(),
      synchronize: { configurationSection: "dldoctor" },
      outputChannel: this.log,
      traceOutputChannel: this.log,
    };
    this.client = new LanguageClient("dldoctor", "dldoctor", serverOptions, clientOptions);
    try {
      await this.client.start();
    } catch (error) {
      const message = `dldoctor: the server (${lookup.path} lsp) did not start: ${errorText(error)}`;
      this.log.error(message);
      void vscode.window.showErrorMessage(message);
    }
  }

  async stopServer(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    if (client !== undefined && client.state !== State.Stopped) {
      await client.stop(2000).catch((error: unknown) => this.log.warn(`stopping the server: ${errorText(error)}`));
    }
  }

  private async restartServer(): Promise<void> {
    await this.stopServer();
    await this.startServer();
  }

  private async runningClient(): Promise<LanguageClient | undefined> {
    if (this.client === undefined) {
      await this.startServer();
    }
    const client = this.client;
    if (client === undefined || client.state !== State.Running) {
      void vscode.window.showErrorMessage("dldoctor: the server is not running; see the dldoctor output.");
      return undefined;
    }
    return client;
  }

  // ---- terminals --------------------------------------------------------------------------

  private watchTerminals(): void {
    const runs = new Map<vscode.TerminalShellExecution, { buffer: OutputBuffer; reading: Promise<void> }>();
    this.disposables.push(
      vscode.window.onDidStartTerminalShellExecution((event) => {
        const buffer = new OutputBuffer(TERMINAL_OUTPUT_LIMIT);
        const stream = event.execution.read();
        const reading = (async () => {
          for await (const data of stream) {
            buffer.push(data);
          }
        })().catch((error: unknown) => this.log.warn(`reading terminal output: ${errorText(error)}`));
        runs.set(event.execution, { buffer, reading });
      }),
      vscode.window.onDidEndTerminalShellExecution(async (event) => {
        const run = runs.get(event.execution);
        if (run === undefined) {
          return;
        }
        runs.delete(event.execution);
        // The stream closes right after the end event; do not wait forever on a stuck one.
        await Promise.race([run.reading, delay(3000)]);
        const text = cleanTerminalText(run.buffer.text());
        const cwd = event.execution.cwd?.fsPath ?? event.shellIntegration.cwd?.fsPath;
        this.lastOutput.set(event.terminal, { text, cwd });
        if (!vscode.workspace.getConfiguration("dldoctor").get<boolean>("autoExplain", true)) {
          return;
        }
        const decision = decideExplain(event.exitCode, text);
        this.log.debug(
          `command "${event.execution.commandLine.value}" exited ${event.exitCode}: ${decision.reason} (${run.buffer.size} chars, ${run.buffer.dropped} dropped)`,
        );
        if (!decision.explain) {
          return;
        }
        await this.explain(text, {
          source: "terminal",
          cwd,
          commandLine: event.execution.commandLine.value,
          exitCode: event.exitCode,
          decision,
        });
      }),
    );
  }

  // ---- commands ---------------------------------------------------------------------------

  private async explainTerminalSelection(): Promise<void> {
    const terminal = vscode.window.activeTerminal;
    if (terminal === undefined) {
      void vscode.window.showInformationMessage("dldoctor: no terminal is open.");
      return;
    }
    // The stable API has no terminal selection: copy it through the clipboard, then put the
    // user's clipboard back.
    const saved = await vscode.env.clipboard.readText();
    await vscode.env.clipboard.writeText("");
    await vscode.commands.executeCommand("workbench.action.terminal.copySelection");
    const selection = await vscode.env.clipboard.readText();
    await vscode.env.clipboard.writeText(saved);
    const cwd = terminal.shellIntegration?.cwd?.fsPath ?? workspaceFolder();
    if (selection.trim() !== "") {
      await this.explain(cleanTerminalText(selection), { source: "terminal-selection", cwd }, { show: true });
      return;
    }
    const last = this.lastOutput.get(terminal);
    if (last !== undefined && last.text.trim() !== "") {
      await this.explain(last.text, { source: "terminal", cwd: last.cwd ?? cwd }, { show: true });
      return;
    }
    void vscode.window.showInformationMessage(
      "dldoctor: select the crash output in the terminal first (or run the command again with shell integration on).",
    );
  }

  private async explainEditorSelection(): Promise<void> {
    const editor = vscode.window.activeTextEditor;
    if (editor === undefined) {
      void vscode.window.showInformationMessage("dldoctor: no editor is open.");
      return;
    }
    const text = editor.selection.isEmpty ? editor.document.getText() : editor.document.getText(editor.selection);
    const folder = vscode.workspace.getWorkspaceFolder(editor.document.uri)?.uri.fsPath ?? workspaceFolder();
    await this.explain(text, { source: "editor-selection", cwd: folder }, { show: true });
  }

  private async explainClipboard(): Promise<void> {
    const text = await vscode.env.clipboard.readText();
    if (text.trim() === "") {
      void vscode.window.showInformationMessage("dldoctor: the clipboard is empty.");
      return;
    }
    await this.explain(cleanTerminalText(text), { source: "clipboard", cwd: workspaceFolder() }, { show: true });
  }

  private async explainFile(uri?: vscode.Uri): Promise<void> {
    let target = uri;
    if (target === undefined) {
      const picked = await vscode.window.showOpenDialog({
        canSelectMany: false,
        openLabel: "Explain",
        filters: { "Logs and text": ["log", "txt", "out", "err"], "All files": ["*"] },
      });
      target = picked?.[0];
    }
    if (target === undefined) {
      return;
    }
    let text: string;
    try {
      text = await readTail(target, LOG_FILE_LIMIT);
    } catch (error) {
      void vscode.window.showErrorMessage(`dldoctor: cannot read ${target.fsPath}: ${errorText(error)}`);
      return;
    }
    const cwd = vscode.workspace.getWorkspaceFolder(target)?.uri.fsPath ?? workspaceFolder();
    await this.explain(cleanTerminalText(text), { source: "file", cwd }, { show: true });
  }

  private async showEnv(): Promise<void> {
    const client = await this.runningClient();
    if (client === undefined) {
      return;
    }
    try {
      const facts = await client.sendRequest(ExecuteCommandRequest.type, { command: "dldoctor.env", arguments: [] });
      await this.view.showEnv(facts);
    } catch (error) {
      void vscode.window.showErrorMessage(`dldoctor: could not read this machine's facts: ${errorText(error)}`);
    }
  }

  // ---- diagnosis --------------------------------------------------------------------------

  private async explain(text: string, origin: Origin, options: { show?: boolean } = {}): Promise<void> {
    const client = await this.runningClient();
    if (client === undefined) {
      return;
    }
    let result: ExplainResult;
    try {
      const raw: unknown = await client.sendRequest(ExecuteCommandRequest.type, {
        command: "dldoctor.explain",
        arguments: [{ text, cwd: origin.cwd }],
      });
      result = parseExplainResult(raw);
    } catch (error) {
      this.log.error(`dldoctor.explain failed: ${errorText(error)}`);
      void vscode.window.showErrorMessage(`dldoctor: the diagnosis failed: ${errorText(error)}`);
      return;
    }
    this.log.info(`${origin.source}: ${result.findings.map((f) => f.id).join(", ") || "no known failure"}`);
    if (options.show) {
      await this.view.showFindings(result, origin.source);
    }
    const finding = result.findings[0];
    if (finding === undefined) {
      await writeTestHook({ origin, findings: [], fix: null });
      return;
    }
    const fix = await this.findFix(finding, origin.cwd);
    await writeTestHook({ origin, findings: result.findings, fix: fix?.action.title ?? null });
    if (!options.show) {
      void this.notify(finding, result, origin, fix);
    }
  }

  private async notify(finding: Finding, result: ExplainResult, origin: Origin, fix: AvailableFix | undefined): Promise<void> {
    const frame = userFrame(finding);
    const actions = ["Explain", ...(frame ? ["Go to line"] : []), ...(fix ? ["Apply fix"] : [])];
    const choice = await vscode.window.showErrorMessage(notificationText(finding), ...actions);
    if (choice === "Explain") {
      await this.view.showFindings(result, origin.source);
    } else if (choice === "Go to line" && frame) {
      await this.goTo(resolveFile(frame.file, origin.cwd), frame.line);
    } else if (choice === "Apply fix" && fix) {
      const applied = await applyCodeAction(fix.action);
      await writeTestHook({ origin, findings: result.findings, fix: fix.action.title, applied });
      if (applied) {
        const document = await vscode.workspace.openTextDocument(fix.uri);
        await vscode.window.showTextDocument(document, { preview: false });
      } else {
        void vscode.window.showErrorMessage(`dldoctor: could not apply "${fix.action.title}".`);
      }
    }
  }

  private async goTo(uri: vscode.Uri, line: number): Promise<void> {
    try {
      const document = await vscode.workspace.openTextDocument(uri);
      const position = new vscode.Position(Math.min(line - 1, document.lineCount - 1), 0);
      await vscode.window.showTextDocument(document, { selection: new vscode.Range(position, position), preview: false });
    } catch (error) {
      void vscode.window.showErrorMessage(`dldoctor: cannot open ${uri.fsPath}: ${errorText(error)}`);
    }
  }

  /**
   * The fix for this failure in the file of the user's frame: the code action the server offers
   * on the diagnosis it placed there (the fix of the rule that prevents the failure), else the
   * same quick fix on the rule's own squiggle. None when no such rule fires there.
   */
  private async findFix(finding: Finding, cwd: string | undefined): Promise<AvailableFix | undefined> {
    const frame = userFrame(finding);
    const rules = new Set(finding.rules ?? []);
    if (frame === undefined) {
      return undefined;
    }
    const uri = resolveFile(frame.file, cwd);
    try {
      await vscode.workspace.openTextDocument(uri);
    } catch {
      return undefined;
    }
    const isDiagnosis = (d: vscode.Diagnostic) => d.source === EXPLAIN_SOURCE && diagnosticCode(d) === finding.id;
    const diagnostics = await waitForDiagnostics(
      uri,
      (d) => isDiagnosis(d) || (d.source === "dldoctor" && rules.has(diagnosticCode(d) ?? "")),
      DIAGNOSTICS_WAIT_MS,
    );
    // The diagnosis first, then the rules closest to the line the traceback points at.
    const rank = (d: vscode.Diagnostic) => (isDiagnosis(d) ? -1 : Math.abs(d.range.start.line + 1 - frame.line));
    diagnostics.sort((a, b) => rank(a) - rank(b));
    for (const diagnostic of diagnostics) {
      const code = diagnosticCode(diagnostic);
      const actions =
        (await vscode.commands.executeCommand<(vscode.CodeAction | vscode.Command)[]>(
          "vscode.executeCodeActionProvider",
          uri,
          diagnostic.range,
          vscode.CodeActionKind.QuickFix.value,
          10,
        )) ?? [];
      // The actions VS Code returns here do not always carry their diagnostics: asked at this
      // diagnostic's own range, every non-suppression quick fix belongs to it or its line.
      const fixes = actions.filter(
        (a): a is vscode.CodeAction => typeof (a as vscode.Command).command !== "string" && !isSuppression(a.title),
      );
      const score = (a: vscode.CodeAction) => 2 * linkedTo(a, code) + (a.isPreferred ? 1 : 0);
      fixes.sort((a, b) => score(b) - score(a));
      const best = fixes[0];
      if (best !== undefined) {
        this.log.info(`fix for ${finding.id}: "${best.title}" (${diagnostic.source} ${code})`);
        return { action: best, uri };
      }
      this.log.info(
        `no fix for ${finding.id} at ${diagnostic.source} ${code}: actions ${actions.map((a) => a.title).join(" | ") || "none"}`,
      );
    }
    if (diagnostics.length === 0) {
      this.log.info(`no fix for ${finding.id}: no diagnosis or rule ${[...rules].join(", ")} in ${uri.fsPath}`);
    }
    return undefined;
  }
}

function serverSettings(): Record<string, unknown> {
  const config = vscode.workspace.getConfiguration("dldoctor");
  const settings: Record<string, unknown> = {
    select: config.get("select"),
    ignore: config.get("ignore"),
    severity: config.get("severity"),
    maxWorkers: config.get("maxWorkers"),
    assumeCpus: config.get("assumeCpus"),
    assumeShm: config.get("assumeShm"),
    kb: config.get("kb"),
    extendQueries: config.get("extendQueries"),
  };
  const locale = config.get<string | null>("locale");
  if (locale) {
    settings.locale = locale;
  }
  return settings;
}

function diagnosticCode(diagnostic: vscode.Diagnostic): string | undefined {
  const code = diagnostic.code;
  if (code === undefined) {
    return undefined;
  }
  if (typeof code === "object") {
    return String(code.value);
  }
  return String(code);
}

/** 1 when the action says it fixes a diagnostic with this code. */
function linkedTo(action: vscode.CodeAction, code: string | undefined): number {
  return action.diagnostics?.some((d) => diagnosticCode(d) === code) ? 1 : 0;
}

function isSuppression(title: string): boolean {
  return /^ignore\b|noqa/i.test(title);
}

async function applyCodeAction(action: vscode.CodeAction): Promise<boolean> {
  if (action.edit !== undefined && !(await vscode.workspace.applyEdit(action.edit))) {
    return false;
  }
  if (action.command !== undefined) {
    await vscode.commands.executeCommand(action.command.command, ...(action.command.arguments ?? []));
  }
  return action.edit !== undefined || action.command !== undefined;
}

function waitForDiagnostics(
  uri: vscode.Uri,
  wanted: (d: vscode.Diagnostic) => boolean,
  timeoutMs: number,
): Promise<vscode.Diagnostic[]> {
  const current = () => vscode.languages.getDiagnostics(uri).filter(wanted);
  const now = current();
  if (now.length > 0) {
    return Promise.resolve(now);
  }
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      listener.dispose();
      resolve(current());
    }, timeoutMs);
    const listener = vscode.languages.onDidChangeDiagnostics((event) => {
      if (!event.uris.some((changed) => changed.toString() === uri.toString())) {
        return;
      }
      const found = current();
      if (found.length > 0) {
        clearTimeout(timer);
        listener.dispose();
        resolve(found);
      }
    });
  });
}

function resolveFile(file: string, cwd: string | undefined): vscode.Uri {
  if (file.startsWith("/") || /^[A-Za-z]:[\\/]/.test(file)) {
    return vscode.Uri.file(file);
  }
  const base = cwd ?? workspaceFolder();
  return base ? vscode.Uri.joinPath(vscode.Uri.file(base), file) : vscode.Uri.file(file);
}

function workspaceFolder(): string | undefined {
  return vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
}

async function readTail(uri: vscode.Uri, limit: number): Promise<string> {
  const bytes = await vscode.workspace.fs.readFile(uri);
  const tail = bytes.length > limit ? bytes.subarray(bytes.length - limit) : bytes;
  return new TextDecoder("utf-8", { fatal: false }).decode(tail);
}

/** Test hook: with DLDOCTOR_TEST_OUT set, the last diagnosis is written there as JSON. */
async function writeTestHook(record: object): Promise<void> {
  const target = process.env.DLDOCTOR_TEST_OUT;
  if (!target) {
    return;
  }
  await fs.writeFile(target, JSON.stringify(record, null, 2)).catch(() => undefined);
}

/**
 * Test hook: with DLDOCTOR_TEST_OUT set, every open notebook's cells (index, kind, text) and the
 * server's diagnostics on each are written beside it (`.notebooks.json`) whenever either
 * changes, so a test can check which cell and range a finding is on.
 */
function watchNotebooksForTests(): vscode.Disposable[] {
  const target = process.env.DLDOCTOR_TEST_OUT;
  if (!target) {
    return [];
  }
  const write = () => {
    const notebooks = vscode.workspace.notebookDocuments.map((notebook) => ({
      uri: notebook.uri.toString(),
      cells: notebook.getCells().map((cell) => ({
        index: cell.index,
        kind: cell.kind === vscode.NotebookCellKind.Code ? "code" : "markup",
        language: cell.document.languageId,
        text: cell.document.getText(),
        diagnostics: vscode.languages
          .getDiagnostics(cell.document.uri)
          .filter((d) => d.source === "dldoctor")
          .map((d) => ({
            code: typeof d.code === "object" ? d.code.value : d.code,
            severity: d.severity,
            range: [d.range.start.line, d.range.start.character, d.range.end.line, d.range.end.character],
          })),
      })),
    }));
    void fs.writeFile(`${target}.notebooks.json`, JSON.stringify(notebooks, null, 2)).catch(() => undefined);
  };
  return [
    vscode.languages.onDidChangeDiagnostics(write),
    vscode.workspace.onDidOpenNotebookDocument(write),
    vscode.workspace.onDidChangeNotebookDocument(write),
  ];
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The interpreter selected in the Python extension (`ms-python.python`), when it is installed. */
async function activePythonInterpreter(log: vscode.LogOutputChannel): Promise<string | undefined> {
  const python = vscode.extensions.getExtension<PythonExtensionApi>("ms-python.python");
  if (!python) {
    return undefined;
  }
  try {
    const api = python.isActive ? python.exports : await python.activate();
    const resource = vscode.workspace.workspaceFolders?.[0]?.uri;
    return api.environments?.getActiveEnvironmentPath(resource)?.path;
  } catch (error) {
    log.warn(`the Python extension gave no interpreter: ${errorText(error)}`);
    return undefined;
  }
}

/** The part of the Python extension's API used here. */
interface PythonExtensionApi {
  environments?: { getActiveEnvironmentPath(resource?: vscode.Uri): { path: string } | undefined };
}

/** `dldoctor --version`, or what went wrong running it. */
function binaryVersion(binary: string): Promise<string> {
  return new Promise((resolve) => {
    execFile(binary, ["--version"], { timeout: 5000 }, (error, stdout) => {
      resolve(error ? `dldoctor (--version failed: ${error.message})` : stdout.trim());
    });
  });
}
