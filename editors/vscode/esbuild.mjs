// Bundles the extension into dist/extension.js; with --tests, also the unit tests into out/test/.
import { readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import * as esbuild from "esbuild";

const here = dirname(fileURLToPath(import.meta.url));
const production = !process.argv.includes("--dev");

await esbuild.build({
  entryPoints: [join(here, "src/extension.ts")],
  bundle: true,
  outfile: join(here, "dist/extension.js"),
  external: ["vscode"],
  format: "cjs",
  platform: "node",
  target: "node20",
  sourcemap: !production,
  minify: production,
  logLevel: "warning",
});

if (process.argv.includes("--tests")) {
  const testDir = join(here, "../../tests/editors/unit");
  await esbuild.build({
    entryPoints: readdirSync(testDir)
      .filter((name) => name.endsWith(".test.ts"))
      .map((name) => join(testDir, name)),
    bundle: true,
    outdir: join(here, "out/test"),
    format: "cjs",
    platform: "node",
    target: "node20",
    logLevel: "warning",
  });
}
