// VS Code end to end, for real: code-server (VS Code 1.100.3 in the browser) with the packaged
// .vsix installed, driven in Debian's headless Chromium by playwright-core.
//
// 1. a risky fixture shows a squiggle and a Problems entry; its quick fix changes the file;
// 2. a crash replayed in the integrated terminal reaches the extension through shell
//    integration, raises the notification and a Problems entry on the user's line; the
//    notification's "Apply fix" changes the file; "Explain" opens the diagnosis;
// 3. a notebook (VS Code's built-in .ipynb serializer, no Jupyter extension) shows each
//    finding in its own cell, a quick fix edits the cell, and a finding follows its cell when a
//    cell is inserted above it.
//
//   DLDOCTOR_ROOT=. DLDOCTOR_VSIX=... node tests/editors/vscode-e2e/vscode_e2e.mjs
import { execFileSync, spawn } from "node:child_process";
import * as fs from "node:fs";
import * as net from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";

import { chromium } from "playwright-core";

const here = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(process.env.DLDOCTOR_ROOT ?? path.join(here, "../../.."));
const VSIX = process.env.DLDOCTOR_VSIX;
const CHROMIUM = process.env.CHROMIUM ?? "/usr/bin/chromium";
const CODE_SERVER = path.join(here, "node_modules/.bin/code-server");
// Test runs keep their screenshots with the other artifacts; `DLDOCTOR_SCREENSHOTS=docs/screenshots`
// refreshes the ones the READMEs show.
const SCREENSHOTS = path.resolve(
  ROOT,
  process.env.DLDOCTOR_SCREENSHOTS ?? "tests/editors/artifacts/tmp/screenshots",
);
const STEP_MS = 60_000;

let passed = 0;
let failed = 0;
function check(ok, what, detail) {
  if (ok) {
    passed += 1;
    console.log(`ok - ${what}`);
  } else {
    failed += 1;
    console.log(`not ok - ${what}${detail === undefined ? "" : `: ${detail}`}`);
  }
  return ok;
}

let page;
let failureShots = 0;

/**
 * Runs a step; a step that throws (a selector that never showed) fails, leaves a screenshot in
 * the temporary folder, and the test goes on.
 */
async function step(what, body) {
  try {
    return await body();
  } catch (error) {
    check(false, what, error instanceof Error ? error.message.split("\n")[0] : String(error));
    failureShots += 1;
    await page?.screenshot({ path: path.join(tmp, `failure-${failureShots}.png`) }).catch(() => undefined);
    return undefined;
  }
}

function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

async function waitFor(what, predicate, timeoutMs = STEP_MS) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await predicate();
    if (value) {
      return value;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    }
    await sleep(250);
  }
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** Every process below `pid` (code-server's ptyHost, shells and file watchers outlive it). */
function descendants(pid) {
  const children = new Map();
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) {
      continue;
    }
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (!children.has(ppid)) {
        children.set(ppid, []);
      }
      children.get(ppid).push(Number(entry));
    } catch {
      // The process ended while we looked.
    }
  }
  const out = [];
  const queue = [pid];
  while (queue.length > 0) {
    const next = queue.shift();
    for (const child of children.get(next) ?? []) {
      out.push(child);
      queue.push(child);
    }
  }
  return out;
}

function killTree(pid) {
  const all = [pid, ...descendants(pid)];
  for (const p of all) {
    try {
      process.kill(p, "SIGKILL");
    } catch {
      // Already gone.
    }
  }
}

function readJson(file) {
  try {
    return JSON.parse(fs.readFileSync(file, "utf8"));
  } catch {
    return undefined;
  }
}

// ---- set-up ---------------------------------------------------------------------------------

if (!VSIX || !fs.existsSync(VSIX)) {
  console.error(`DLDOCTOR_VSIX must name the packaged extension (got ${VSIX})`);
  process.exit(2);
}
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "dldoctor-vscode-"));
const project = path.join(tmp, "project");
const userData = path.join(tmp, "user-data");
const extensions = path.join(tmp, "extensions");
const testOut = path.join(tmp, "last-diagnosis.json");
// The extension's record of the open notebooks' cells and their diagnostics.
const notebooksOut = `${testOut}.notebooks.json`;
const config = path.join(tmp, "code-server.yaml");
fs.writeFileSync(config, "auth: none\ncert: false\n");
const fixtures = path.join(ROOT, "tests/editors/fixtures");
fs.mkdirSync(path.join(project, "recorded"), { recursive: true });
for (const name of ["train.py", "risky.py", "squares.ipynb"]) {
  fs.copyFileSync(path.join(fixtures, "project", name), path.join(project, name));
}
fs.copyFileSync(path.join(fixtures, "replay_crash.py"), path.join(project, "replay_crash.py"));
fs.copyFileSync(
  path.join(fixtures, "recorded/persistent_workers.txt"),
  path.join(project, "recorded/persistent_workers.txt"),
);
fs.writeFileSync(path.join(project, "pyproject.toml"), '[project]\nname = "fixture"\n');
fs.mkdirSync(path.join(userData, "User"), { recursive: true });
fs.writeFileSync(
  path.join(userData, "User/settings.json"),
  JSON.stringify(
    {
      "security.workspace.trust.enabled": false,
      "terminal.integrated.defaultProfile.linux": "bash",
      "terminal.integrated.shellIntegration.enabled": true,
      "workbench.startupEditor": "none",
      "workbench.tips.enabled": false,
      "extensions.autoCheckUpdates": false,
      "extensions.autoUpdate": false,
      "telemetry.telemetryLevel": "off",
      "chat.commandCenter.enabled": false,
      "editor.minimap.enabled": false,
      // Host facts fixed so the result does not depend on this machine; one CPU makes DL201
      // fire on num_workers=2, which shows the settings reach the server.
      "dldoctor.assumeCpus": 1,
      "dldoctor.assumeShm": "8G",
    },
    null,
    2,
  ),
);

execFileSync(
  CODE_SERVER,
  ["--config", config, "--user-data-dir", userData, "--extensions-dir", extensions, "--install-extension", VSIX],
  { stdio: "inherit", timeout: 120_000 },
);
const installed = fs.readdirSync(extensions).find((name) => name.startsWith("dldoctor.dldoctor-"));
check(installed !== undefined, "the .vsix installs into code-server", fs.readdirSync(extensions).join(", "));
check(
  installed !== undefined && fs.existsSync(path.join(extensions, installed, "server/dldoctor")),
  "the installed extension carries the server binary",
);

const port = await freePort();
const serverLog = fs.openSync(path.join(tmp, "code-server.log"), "w");
const codeServer = spawn(
  CODE_SERVER,
  [
    "--config", config,
    "--auth", "none",
    "--bind-addr", `127.0.0.1:${port}`,
    "--disable-telemetry",
    "--disable-update-check",
    "--disable-workspace-trust",
    "--disable-getting-started-override",
    "--user-data-dir", userData,
    "--extensions-dir", extensions,
    project,
  ],
  { env: { ...process.env, DLDOCTOR_TEST_OUT: testOut }, stdio: ["ignore", serverLog, serverLog] },
);

let browser;
async function cleanUp() {
  await browser?.close().catch(() => undefined);
  if (codeServer.pid !== undefined) {
    killTree(codeServer.pid);
  }
  if (failed === 0) {
    fs.rmSync(tmp, { recursive: true, force: true });
  } else {
    console.log(`left for inspection: ${tmp} (code-server.log, last-diagnosis.json)`);
  }
}
process.on("SIGTERM", () => {
  void cleanUp().finally(() => process.exit(1));
});

try {
  await waitFor(
    "code-server to answer",
    async () => (await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => undefined))?.ok,
  );
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-dev-shm-usage",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--disable-quic",
      "--no-first-run",
    ],
  });
  page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(project)}`);
  await page.waitForSelector(".monaco-workbench", { timeout: STEP_MS });
  fs.mkdirSync(SCREENSHOTS, { recursive: true });

  const openFile = async (name) => {
    await page.locator(".explorer-folders-view .monaco-list-row", { hasText: name }).first().dblclick();
    await page.waitForSelector(`.tab.active[aria-label*="${name}"]`, { timeout: 10_000 });
  };
  const runInTerminal = async (commandLine) => {
    const terminal = page.locator(".terminal-wrapper .xterm").first();
    if (!(await terminal.isVisible())) {
      await page.keyboard.press("Control+`");
      await terminal.waitFor({ state: "visible", timeout: 10_000 });
    }
    await terminal.click();
    await page.keyboard.type(commandLine);
    await page.keyboard.press("Enter");
  };
  /** The text of a markdown preview (a webview: nested frames) that matches `pattern`. */
  const renderedPage = (pattern) =>
    waitFor(
      `a rendered page matching ${pattern}`,
      async () => {
        for (const frame of page.frames()) {
          const text = await frame.locator("body").innerText({ timeout: 1000 }).catch(() => "");
          if (pattern.test(text)) {
            return text;
          }
        }
        return undefined;
      },
      30_000,
    );
  const CRASH = "python3 replay_crash.py recorded/persistent_workers.txt";
  const editorText = () => page.locator(".editor-instance .view-lines").first().innerText();
  const problemsText = () => page.locator(".markers-panel").first().innerText().catch(() => "");
  /** Opens the quick fix menu at the cursor, checks a fix matching `title` is offered, applies it. */
  const applyQuickFix = async (title, what, screenshot) => {
    await page.keyboard.press("Control+.");
    const menu = page.locator(".action-widget .monaco-list-row");
    await menu.first().waitFor({ timeout: 15_000 });
    const titles = await menu.allInnerTexts();
    check(titles.some((t) => title.test(t)), what, titles.join(" | "));
    if (screenshot !== undefined) {
      await page.screenshot({ path: path.join(SCREENSHOTS, screenshot) });
    }
    // Walk the menu with the keyboard to the fix (clicks on its rows are not reliable).
    for (let i = 0; i < titles.length; i += 1) {
      const focused = await page.locator(".action-widget .monaco-list-row.focused").first().innerText().catch(() => "");
      if (title.test(focused)) {
        break;
      }
      await page.keyboard.press("ArrowDown");
    }
    await page.keyboard.press("Enter");
  };

  // -- 1. squiggle, Problems entry, quick fix --------------------------------------------------
  await step("risky.py shows a squiggle", async () => {
    await openFile("risky.py");
    await page.waitForSelector(".squiggly-error", { timeout: STEP_MS });
    check(true, "risky.py shows an error squiggle");
  });
  await step("the Problems panel lists DL301", async () => {
    await page.keyboard.press("Control+Shift+M");
    await waitFor("DL301 in Problems", async () => /DL301/.test(await problemsText()), 30_000);
    check(true, "the Problems panel lists DL301 for risky.py");
    await waitFor("DL201 in Problems", async () => /DL201/.test(await problemsText()), 15_000);
    check(true, "DL201 fires with dldoctor.assumeCpus = 1 from the settings");
    await page.screenshot({ path: path.join(SCREENSHOTS, "vscode-squiggle-problems.png") });
  });
  await step("the DL301 quick fix changes the file", async () => {
    const line = fs.readFileSync(path.join(project, "risky.py"), "utf8").split("\n")[4];
    const column = line.indexOf("prefetch_factor") + 3;
    await page.locator(".editor-instance .view-lines").first().click();
    await page.keyboard.press("Control+G");
    await page.keyboard.type(`5:${column}`);
    await page.keyboard.press("Enter");
    await sleep(300);
    await applyQuickFix(/Remove `prefetch_factor=4`/, "a quick fix for DL301 is offered", "vscode-quick-fix.png");
    await waitFor("the edit", async () => !/prefetch_factor/.test(await editorText()), 10_000);
    await page.keyboard.press("Control+S");
    await waitFor(
      "risky.py saved",
      () => !fs.readFileSync(path.join(project, "risky.py"), "utf8").includes("prefetch_factor"),
      10_000,
    );
    check(true, "the quick fix removed prefetch_factor from risky.py on disk");
  });

  // -- 2. a crash in the integrated terminal ----------------------------------------------------
  await step("the crash in the terminal is diagnosed", async () => {
    await page.keyboard.press("Control+`");
    await page.waitForSelector(".terminal-wrapper .xterm", { timeout: STEP_MS });
    // Shell integration is injected into bash at start; give the prompt a moment.
    await sleep(3000);
    await runInTerminal(CRASH);
    const diagnosis = await waitFor("the extension's diagnosis", () => {
      const record = readJson(testOut);
      return record?.origin?.source === "terminal" ? record : undefined;
    });
    check(diagnosis.origin.exitCode === 1, "the terminal command's exit code reached the extension", diagnosis.origin.exitCode);
    check(diagnosis.findings.length > 0, "the server found a known failure", JSON.stringify(diagnosis.findings));
    const frame = diagnosis.findings[0]?.frames?.filter((f) => f.user).at(-1);
    check(frame?.line === 7 && frame.file.endsWith("train.py"), "the user's frame is train.py:7", JSON.stringify(frame));
    check(typeof diagnosis.fix === "string", "a fix applies to this failure", diagnosis.fix);
  });
  const toast = page.locator(".notifications-toasts .notification-toast", { hasText: "dldoctor" }).first();
  await step("the notification names the failure", async () => {
    await toast.waitFor({ timeout: STEP_MS });
    const text = await toast.innerText();
    check(/train\.py:7/.test(text), "the notification names the failure and the user's line", text);
    for (const action of ["Explain", "Go to line", "Apply fix"]) {
      check(await toast.getByRole("button", { name: action }).isVisible(), `the notification offers "${action}"`);
    }
    await page.screenshot({ path: path.join(SCREENSHOTS, "vscode-terminal-notification.png") });
  });
  await step("the Problems panel lists the diagnosis on train.py", async () => {
    await page.keyboard.press("Control+Shift+M");
    await waitFor("train.py in Problems", async () => /train\.py/.test(await problemsText()), 30_000);
    const text = await problemsText();
    check(/dldoctor-explain/.test(text) || /persistent_workers/.test(text), "the Problems entry is the diagnosis", text);
    check(/\[Ln 7/.test(text), "the Problems entry sits on the user's line 7", text);
    await page.screenshot({ path: path.join(SCREENSHOTS, "vscode-problems-diagnosis.png") });
  });
  await step("Apply fix changes train.py", async () => {
    await toast.getByRole("button", { name: "Apply fix" }).click();
    await waitFor("the fix to be applied", () => readJson(testOut)?.applied === true, 15_000);
    await page.waitForSelector('.tab.active[aria-label*="train.py"]', { timeout: 10_000 });
    await waitFor("the edit in the editor", async () => !/persistent_workers/.test(await editorText()), 10_000);
    await page.keyboard.press("Control+S");
    await waitFor(
      "train.py saved",
      () => !fs.readFileSync(path.join(project, "train.py"), "utf8").includes("persistent_workers"),
      10_000,
    );
    check(true, '"Apply fix" removed persistent_workers from train.py on disk');
  });
  await step("Explain opens the diagnosis", async () => {
    fs.rmSync(testOut, { force: true });
    await runInTerminal(CRASH);
    await toast.waitFor({ timeout: STEP_MS });
    await toast.getByRole("button", { name: "Explain" }).click();
    await page.waitForSelector('.tab[aria-label*="diagnosis-"]', { timeout: 15_000 });
    check(true, '"Explain" opens the diagnosis page');
    const rendered = await renderedPage(/What fixes it/);
    check(/## |Cause/.test(rendered) && /train\.py:7/.test(rendered), "the page has the cause, the fixes and the user's line", rendered);
    await page.screenshot({ path: path.join(SCREENSHOTS, "vscode-explain-view.png") });
  });
  await step("Go to line opens the user's frame", async () => {
    await runInTerminal(CRASH);
    await toast.waitFor({ timeout: STEP_MS });
    await toast.getByRole("button", { name: "Go to line" }).click();
    await page.waitForSelector('.tab.active[aria-label*="train.py"]', { timeout: 15_000 });
    const status = await waitFor(
      "the cursor on line 7",
      async () => {
        const text = await page.locator(".statusbar").first().innerText();
        return /Ln 7, Col 1\b/.test(text) ? text : undefined;
      },
      15_000,
    );
    check(true, '"Go to line" puts the cursor on train.py line 7', status);
  });
  await step("Show this machine's facts", async () => {
    await page.keyboard.press("F1");
    await page.waitForSelector(".quick-input-widget input", { state: "visible", timeout: 10_000 });
    await page.keyboard.type("dldoctor: Show this machine");
    await sleep(700);
    await page.keyboard.press("Enter");
    await page.waitForSelector('.tab[aria-label*="machine"]', { timeout: 15_000 });
    const facts = await renderedPage(/This machine[\s\S]*usable/);
    check(/os\s+linux/.test(facts), "the machine's facts page shows the usable CPUs and the OS", facts);
    await page.screenshot({ path: path.join(SCREENSHOTS, "vscode-machine-facts.png") });
  });

  // -- 3. a notebook ----------------------------------------------------------------------------
  const NOTEBOOK = "squares.ipynb";
  const notebookCells = () => readJson(notebooksOut)?.find((n) => n.uri.endsWith(NOTEBOOK))?.cells;
  const codesOf = (cell) => (cell?.diagnostics ?? []).map((d) => d.code).sort().join(",");
  /** The notebook's cell row at `index` (taller page: every cell is rendered, none scrolled away). */
  const cellRow = (index) => page.locator(`.notebook-editor .monaco-list-row[data-index="${index}"]`).first();
  await step("the notebook shows each finding in its cell", async () => {
    await page.setViewportSize({ width: 1280, height: 1600 });
    await openFile(NOTEBOOK);
    const cells = await waitFor(
      "DL301 on cell 4 and DL107 on cell 5",
      () => {
        const cells = notebookCells();
        return codesOf(cells?.[3]) === "DL301" && codesOf(cells?.[4]) === "DL107" ? cells : undefined;
      },
    );
    check(cells.filter((c) => c.kind === "code").every((c) => c.language === "python"), "the code cells are Python cells");
    check(cells.slice(0, 3).every((c) => c.diagnostics.length === 0), "the cells before the loaders have no finding");
    // Cell-relative ranges: the magic line counts, the other cells do not.
    check(
      JSON.stringify(cells[3].diagnostics[0].range) === "[1,43,1,58]",
      "DL301 is on `prefetch_factor=4`, line 2 of cell 4",
      JSON.stringify(cells[3].diagnostics),
    );
    check(
      JSON.stringify(cells[4].diagnostics[0].range) === "[0,21,0,30]",
      "DL107 is on `Squares()`, line 1 of cell 5",
      JSON.stringify(cells[4].diagnostics),
    );
    for (const index of [3, 4]) {
      await cellRow(index).locator(".squiggly-error").first().waitFor({ timeout: 15_000 });
    }
    check((await cellRow(2).locator(".squiggly-error, .squiggly-warning").count()) === 0, "no squiggle in the class's cell");
    check(true, "the squiggles show in cells 4 and 5");
    await page.screenshot({ path: path.join(SCREENSHOTS, "vscode-notebook-cells.png") });
  });
  await step("the DL301 quick fix edits its cell", async () => {
    // A click on the squiggle puts the cursor inside the finding's range.
    const squiggle = await cellRow(3).locator(".squiggly-error").first().boundingBox();
    await page.mouse.click(squiggle.x + squiggle.width / 2, squiggle.y + squiggle.height / 2);
    await applyQuickFix(/Remove `prefetch_factor=4`/, "the cell offers the DL301 quick fix");
    const fixed = "%time squares = Squares()\nloader = DataLoader(squares, batch_size=4)";
    await waitFor("the cell's new text without DL301", () => {
      const cell = notebookCells()?.[3];
      return cell?.text === fixed && cell.diagnostics.length === 0;
    });
    check(true, "the quick fix rewrote cell 4 and its finding is gone");
    check(codesOf(notebookCells()?.[4]) === "DL107", "cell 5 keeps its finding");
    await page.keyboard.press("Control+S");
    await waitFor("the notebook saved", () => {
      const saved = readJson(path.join(project, NOTEBOOK));
      return saved?.cells?.[3]?.source?.join("") === fixed;
    }, 15_000);
    check(true, "the saved .ipynb holds the fixed cell");
  });
  await step("a finding follows its cell when a cell is inserted above", async () => {
    await cellRow(4).locator(".view-lines").first().click();
    await page.keyboard.press("F1");
    await page.waitForSelector(".quick-input-widget input", { state: "visible", timeout: 10_000 });
    await page.keyboard.type("Notebook: Insert Code Cell Above");
    await page
      .locator(".quick-input-list .monaco-list-row.focused", { hasText: "Insert Code Cell Above" })
      .waitFor({ timeout: 10_000 });
    await page.keyboard.press("Enter");
    await waitFor("a sixth cell", () => notebookCells()?.length === 6, 15_000);
    await page.keyboard.type("import os");
    const cells = await waitFor("DL107 on cell 6", () => {
      const cells = notebookCells();
      return cells?.[4]?.text === "import os" && codesOf(cells[5]) === "DL107" ? cells : undefined;
    });
    check(cells[4].diagnostics.length === 0, "the inserted cell has no finding", JSON.stringify(cells[4]));
    check(
      JSON.stringify(cells[5].diagnostics[0].range) === "[0,21,0,30]",
      "DL107 moved with its cell, to cell 6, at the same place",
      JSON.stringify(cells[5].diagnostics),
    );
    await cellRow(5).locator(".squiggly-error").first().waitFor({ timeout: 15_000 });
    check(true, "the squiggle shows in cell 6");
    await page.screenshot({ path: path.join(SCREENSHOTS, "vscode-notebook-inserted.png") });
  });
} catch (error) {
  check(false, "the VS Code session", error instanceof Error ? error.stack : String(error));
} finally {
  await cleanUp();
}
console.log(`vscode: ${passed} passed, ${failed} failed`);
process.exit(failed === 0 && passed > 0 ? 0 : 1);
