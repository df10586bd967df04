import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { after, describe, it } from "node:test";

import { findServer } from "../../../editors/vscode/src/serverPath";

const root = fs.mkdtempSync(path.join(os.tmpdir(), "dldoctor-server-path-"));
after(() => fs.rmSync(root, { recursive: true, force: true }));

function executable(file: string): string {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, "#!/bin/sh\n");
  fs.chmodSync(file, 0o755);
  return file;
}

describe("findServer", () => {
  const extension = path.join(root, "ext");
  const bundled = executable(path.join(extension, "server", "dldoctor"));
  const binDir = path.join(root, "bin");
  const onPath = executable(path.join(binDir, "dldoctor"));
  const custom = executable(path.join(root, "custom", "dldoctor-dev"));

  it("prefers the setting", () => {
    const found = findServer({ setting: custom, extensionPath: extension, pathEnv: binDir, platform: "linux" });
    assert.deepEqual(found, { found: true, path: custom, source: "setting" });
  });

  it("reports a setting that names no executable instead of falling back", () => {
    const found = findServer({ setting: path.join(root, "nope"), extensionPath: extension, pathEnv: binDir, platform: "linux" });
    assert.equal(found.found, false);
    assert.match(!found.found ? found.message : "", /dldoctor\.path.*not an executable file/);
  });

  const venvBin = path.join(root, "venv", "bin");
  const interpreter = executable(path.join(venvBin, "python"));
  const inVenv = executable(path.join(venvBin, "dldoctor"));

  it("prefers the setting over the Python environment", () => {
    const found = findServer({ setting: custom, interpreter, extensionPath: extension, pathEnv: binDir, platform: "linux" });
    assert.deepEqual(found, { found: true, path: custom, source: "setting" });
  });

  it("prefers the Python environment's binary over the bundled one and PATH", () => {
    const found = findServer({ setting: null, interpreter, extensionPath: extension, pathEnv: binDir, platform: "linux" });
    assert.deepEqual(found, { found: true, path: inVenv, source: "Python environment" });
  });

  it("uses the bundled binary when the Python environment has none", () => {
    const bare = executable(path.join(root, "bare-venv", "bin", "python"));
    const found = findServer({ setting: null, interpreter: bare, extensionPath: extension, pathEnv: binDir, platform: "linux" });
    assert.deepEqual(found, { found: true, path: bundled, source: "bundled" });
  });

  it("uses the bundled binary when no setting is given", () => {
    const found = findServer({ setting: "  ", extensionPath: extension, pathEnv: binDir, platform: "linux" });
    assert.deepEqual(found, { found: true, path: bundled, source: "bundled" });
  });

  it("falls back to PATH", () => {
    const pathEnv = [path.join(root, "empty"), binDir].join(path.delimiter);
    const found = findServer({ setting: null, extensionPath: path.join(root, "none"), pathEnv, platform: "linux" });
    assert.deepEqual(found, { found: true, path: onPath, source: "PATH" });
  });

  it("skips files on PATH that are not executable", () => {
    const plainDir = path.join(root, "plain");
    fs.mkdirSync(plainDir, { recursive: true });
    fs.writeFileSync(path.join(plainDir, "dldoctor"), "not a program");
    const found = findServer({ setting: undefined, extensionPath: path.join(root, "none"), pathEnv: plainDir, platform: "linux" });
    assert.equal(found.found, false);
  });

  it("says what to do when nothing is found", () => {
    const found = findServer({ setting: undefined, extensionPath: path.join(root, "none"), pathEnv: "", platform: "linux" });
    assert.equal(found.found, false);
    assert.match(!found.found ? found.message : "", /pip install dldoctor.*dldoctor\.path/);
  });
});

describe("findServer with a bundled binary that lost its mode", () => {
  it("makes it executable again", () => {
    const extension = path.join(root, "ext-no-mode");
    const bundled = path.join(extension, "server", "dldoctor");
    fs.mkdirSync(path.dirname(bundled), { recursive: true });
    fs.writeFileSync(bundled, "#!/bin/sh\n");
    fs.chmodSync(bundled, 0o644);
    const found = findServer({ setting: undefined, extensionPath: extension, pathEnv: "", platform: "linux" });
    assert.deepEqual(found, { found: true, path: bundled, source: "bundled" });
  });
});
