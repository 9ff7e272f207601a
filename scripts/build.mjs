// Bundles the CLI (and the bench and the fuzz runner) with esbuild, then pre-parses the built-in
// flows into dist/flows.json so no command pays for the Markdown parser.
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, renameSync, rmSync } from 'node:fs';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
// Build beside dist/ and swap it in at the end, so a CLI running meanwhile never finds half a build.
const out = `dist.build-${process.pid}`;
rmSync(out, { recursive: true, force: true });

const common = {
  outdir: out,
  chunkNames: 'chunks/[name]-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  minify: true,
  sourcemap: true,
  legalComments: 'external',
  define: { AUTOPILOT_VERSION: JSON.stringify(pkg.version) },
  // Bundled CommonJS packages use require() and __filename; give each ES module chunk both.
  banner: {
    js: "import{createRequire as __apRequire}from'node:module';import{fileURLToPath as __apPath}from'node:url';const require=__apRequire(import.meta.url);const __filename=__apPath(import.meta.url);",
  },
  logLevel: 'warning',
};

// The CLI is built on its own, so the code it shares with the other entries is not cut into
// chunks it must then load one by one: start-up pays per file. Only its lazy parts are chunks.
await build({ ...common, entryPoints: { cli: 'src/cli/main.ts' } });
await build({
  ...common,
  entryPoints: { app: 'src/app/index.ts', 'prebuild-flows': 'src/tools/prebuild-flows.ts', bench: 'bench/run.ts', fuzz: 'test/fuzz/main.ts' },
});

execFileSync(process.execPath, [`${out}/prebuild-flows.js`, `${out}/flows.json`], { stdio: 'inherit' });

const old = `dist.old-${process.pid}`;
if (existsSync('dist')) renameSync('dist', old);
renameSync(out, 'dist');
rmSync(old, { recursive: true, force: true });
