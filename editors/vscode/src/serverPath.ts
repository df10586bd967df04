// Which `dldoctor` binary to start. No `vscode` imports: unit-tested with node's test runner.
import * as fs from "node:fs";
import * as path from "node:path";

export type ServerSource = "setting" | "Python environment" | "bundled" | "PATH";

export type ServerLookup =
  | { found: true; path: string; source: ServerSource }
  | { found: false; message: string };

function isExecutableFile(file: string): boolean {
  try {
    if (!fs.statSync(file).isFile()) {
      return false;
    }
    fs.accessSync(file, process.platform === "win32" ? fs.constants.F_OK : fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** An archive that lost the file mode leaves the bundled binary non-executable: put it back. */
function restoreExecutableBit(file: string): void {
  try {
    const stat = fs.statSync(file);
    if (stat.isFile() && (stat.mode & 0o111) === 0) {
      fs.chmodSync(file, stat.mode | 0o755);
    }
  } catch {
    // Missing or read-only: the lookup goes on to PATH.
  }
}

function binaryName(platform: NodeJS.Platform): string {
  return platform === "win32" ? "dldoctor.exe" : "dldoctor";
}

/**
 * The `dldoctor` that `pip install dldoctor` put beside the selected interpreter: a virtual
 * environment's `bin/` (`Scripts` on Windows) holds both.
 */
export function environmentBinary(interpreter: string | undefined, platform: NodeJS.Platform = process.platform): string | undefined {
  if (!interpreter) {
    return undefined;
  }
  const candidate = path.join(path.dirname(interpreter), binaryName(platform));
  return isExecutableFile(candidate) ? candidate : undefined;
}

function searchPath(name: string, pathEnv: string | undefined): string | undefined {
  for (const dir of (pathEnv ?? "").split(path.delimiter)) {
    if (dir === "") {
      continue;
    }
    const candidate = path.join(dir, name);
    if (isExecutableFile(candidate)) {
      return candidate;
    }
  }
  return undefined;
}

/**
 * The `dldoctor.path` setting when given (and then only it: a wrong setting is reported, not
 * silently replaced), else the active Python environment's `dldoctor`, else the binary bundled
 * under the extension's `server/`, else `PATH`.
 */
export function findServer(options: {
  setting: string | null | undefined;
  /** The Python interpreter selected in the Python extension, when it is installed. */
  interpreter?: string;
  extensionPath: string;
  pathEnv: string | undefined;
  platform?: NodeJS.Platform;
}): ServerLookup {
  const name = binaryName(options.platform ?? process.platform);
  const setting = options.setting?.trim();
  if (setting) {
    if (isExecutableFile(setting)) {
      return { found: true, path: setting, source: "setting" };
    }
    return {
      found: false,
      message: `dldoctor: the "dldoctor.path" setting names ${setting}, which is not an executable file. Fix the setting, or clear it to use the bundled binary or the one on PATH.`,
    };
  }
  const fromEnvironment = environmentBinary(options.interpreter, options.platform);
  if (fromEnvironment) {
    return { found: true, path: fromEnvironment, source: "Python environment" };
  }
  const bundled = path.join(options.extensionPath, "server", name);
  restoreExecutableBit(bundled);
  if (isExecutableFile(bundled)) {
    return { found: true, path: bundled, source: "bundled" };
  }
  const onPath = searchPath(name, options.pathEnv);
  if (onPath) {
    return { found: true, path: onPath, source: "PATH" };
  }
  return {
    found: false,
    message:
      "dldoctor: no dldoctor binary found: none in the selected Python environment, none bundled with this build of the extension for this platform, none on PATH. Install it into your environment (pip install dldoctor) or set \"dldoctor.path\" to the binary.",
  };
}
