// Bundles the CLI (and the bench and the fuzz runner) with esbuild, then pre-parses the built-in
// flows into dist/flows.json so no command pays for the Markdown parser.
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { relative, resolve } from 'node:path';

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
  minify: process.env.AUTOPILOT_NO_MINIFY ? false : true,
  sourcemap: true,
  legalComments: 'external',
  define: { AUTOPILOT_VERSION: JSON.stringify(pkg.version) },
  // Bundled CommonJS packages use require() and __filename; give each ES module chunk both.
  banner: {
    js: "import{createRequire as __apRequire}from'node:module';import{fileURLToPath as __apPath}from'node:url';const require=__apRequire(import.meta.url);const __filename=__apPath(import.meta.url);",
  },
  logLevel: 'warning',
};

// What the CLI loads only when it needs it: each is a bundle of its own under dist/lazy/, so the
// CLI itself is one file (start-up pays per module file, and per byte it parses).
const LAZY = {
  'src/flow/parse-flow.ts': 'parse-flow',
  'src/summary/task-table.ts': 'task-table',
  'src/app/parse-yaml.ts': 'parse-yaml',
  'src/io/skill-state.ts': 'skill-state',
  'src/git/repository.ts': 'git-repository',
  'src/git/history.ts': 'git-history',
  'src/git/notes.ts': 'git-notes',
  'src/git/progress-commit.ts': 'git-progress-commit',
  'src/git/progress-message.ts': 'git-progress-message',
  'src/git/remote-lease.ts': 'git-remote-lease',
  'src/mcp/server.ts': 'mcp',
  'src/app/hooks.ts': 'hooks',
  'src/app/report.ts': 'report',
  'src/app/codex-config.ts': 'codex-config',
};
const root = process.cwd();
const lazyImports = {
  name: 'lazy-imports',
  setup(b) {
    b.onResolve({ filter: /^\./ }, (args) => {
      if (args.kind !== 'dynamic-import') return undefined;
      const name = LAZY[relative(root, resolve(args.resolveDir, args.path.replace(/\.js$/, '.ts')))];
      return name ? { path: `./lazy/${name}.js`, external: true } : undefined;
    });
  },
};

// The CLI, on its own: no code shared with the other entries is cut into chunks it must load one by one.
await build({ ...common, splitting: false, entryPoints: { cli: 'src/cli/main.ts' }, plugins: [lazyImports] });
await build({
  ...common,
  entryPoints: {
    app: 'src/library.ts',
    'prebuild-flows': 'src/tools/prebuild-flows.ts',
    bench: 'bench/run.ts',
    fuzz: 'test/fuzz/main.ts',
    ...Object.fromEntries(Object.entries(LAZY).map(([file, name]) => [`lazy/${name}`, file])),
  },
});

execFileSync(process.execPath, [`${out}/prebuild-flows.js`, `${out}/flows.json`], { stdio: 'inherit' });

const old = `dist.old-${process.pid}`;
if (existsSync('dist')) renameSync('dist', old);
renameSync(out, 'dist');
rmSync(old, { recursive: true, force: true });
