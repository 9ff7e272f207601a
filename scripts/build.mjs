// Bundles the CLI (and the bench and the fuzz runner) with esbuild, then pre-parses the built-in
// flows into dist/flows.json so no command pays for the Markdown parser, and the built-in skills'
// output declarations into dist/skills.json so none pays for the YAML parser.
//
// What ships (package.json `files`) is the CLI, its lazy bundles and their chunks: every
// dependency is bundled in, so installing autopilot installs nothing else. The repository's own
// bundles (the library the fault tests load, the bench, the fuzz runner) are built beside them
// with chunks of their own (dist/dev-chunks/), so none of their code rides in a shipped chunk.
// Source maps are written for the repository's own runs and left out of the package.
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
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
// CLI itself is one file (start-up pays per module file, and per byte it parses). Only the parts
// that bring a large dependency are lazy: autopilot's own code is in the CLI bundle, which runs
// from V8's code cache, so a lazy bundle of it would cost a second copy in the package and save
// little at start-up.
const LAZY = {
  'src/formats/flow/parse-flow.ts': 'parse-flow',
  'src/app/transaction/parse-yaml.ts': 'parse-yaml',
  'src/io/skill-state.ts': 'skill-state',
  'src/io/skill-outputs.ts': 'skill-outputs',
  'src/mcp/server.ts': 'mcp',
  'src/clients/codex-toml.ts': 'codex-toml',
};
// The git layer, the one lazy part a step command always loads (a `done` that commits, a `next` that starts a step): ONE
// CommonJS file (dist/lazy/git.cjs) holding every module the command layer imports from src/git, built on its own so no
// chunk is cut from it. bin/autopilot.js requires it and runs it from V8's code cache as it runs the CLI: no ES module
// loader is started, and nothing is compiled again (a `done` with its commit used to load seven ES modules for it).
const GIT_LAZY = ['repository', 'history', 'notes', 'progress-commit', 'run-snapshot', 'progress-message', 'remote-lease', 'branches', 'outside-docs'].map(
  (name) => `src/git/${name}.ts`,
);
const root = process.cwd();
// Parts of the dependencies that autopilot never runs (or runs only on demand), replaced by stubs that say why (scripts/stubs/).
const stubs = {
  name: 'stubs',
  setup(b) {
    b.onResolve({ filter: /\/validation\/ajv-provider\.js$/ }, (args) =>
      args.importer.includes('@modelcontextprotocol') ? { path: resolve(root, 'scripts/stubs/ajv-provider.js') } : undefined,
    );
    b.onResolve({ filter: /^mdast-util-to-markdown$/ }, () => ({ path: resolve(root, 'scripts/stubs/mdast-util-to-markdown.js') }));
    b.onResolve({ filter: /^markdown-table$/ }, () => ({ path: resolve(root, 'scripts/stubs/markdown-table.js') }));
    b.onResolve({ filter: /^(?:micromark-extension|mdast-util)-gfm-(?:autolink-literal|footnote|strikethrough)$/ }, () => ({
      path: resolve(root, 'scripts/stubs/gfm-unread.js'),
    }));
    b.onResolve({ filter: /^character-entities$/ }, () => ({ path: resolve(root, 'scripts/stubs/character-entities.js') }));
    // yaml's ES module build (the same code as its CommonJS one, which esbuild cannot tree-shake): only what autopilot calls ships.
    b.onResolve({ filter: /^yaml$/ }, () => ({ path: resolve(root, 'node_modules/yaml/browser/dist/index.js') }));
    b.onResolve({ filter: /^picomatch$/ }, (args) =>
      args.importer.endsWith('picomatch-on-first-use.cjs') ? undefined : { path: resolve(root, 'scripts/stubs/picomatch-on-first-use.cjs') },
    );
    b.onResolve({ filter: /^\.\.?\/(?:core\/)?(?:json-schema-processors|to-json-schema|json-schema-generator)\.js$/ }, (args) =>
      /[\\/]zod[\\/]v4[\\/]/.test(args.importer) ? { path: resolve(root, 'scripts/stubs/zod-json-schema.js') } : undefined,
    );
  },
};
const lazyImports = {
  name: 'lazy-imports',
  setup(b) {
    b.onResolve({ filter: /^\./ }, (args) => {
      if (args.kind !== 'dynamic-import') return undefined;
      const source = relative(root, resolve(args.resolveDir, args.path.replace(/\.js$/, '.ts')));
      if (GIT_LAZY.includes(source)) return { path: './lazy/git.cjs', external: true };
      const name = LAZY[source];
      return name ? { path: `./lazy/${name}.js`, external: true } : undefined;
    });
  },
};

// The CLI, on its own: no code shared with the other entries is cut into chunks it must load one by one.
// It is CommonJS, run by bin/autopilot.js from V8's code cache as a function that is handed its URL
// (`__apUrl`, for import.meta.url) and an import() for the lazy bundles (`__apImport`): a script V8
// compiles from a cache cannot call import() itself without an experimental Node flag.
await build({
  ...common,
  splitting: false,
  format: 'cjs',
  outExtension: { '.js': '.cjs' },
  entryPoints: { cli: 'src/cli/main.ts' },
  define: { ...common.define, 'import.meta.url': '__apUrl' },
  banner: {},
  plugins: [stubs, lazyImports],
});
const cliFile = `${out}/cli.cjs`;
const cli = readFileSync(cliFile, 'utf8');
const lazyCall = /\bimport\(("\.\/lazy\/[\w-]+\.c?js")\)/g;
const handed = cli.replace(lazyCall, '__apImport($1)');
if (/\bimport\(/.test(handed.replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`(?:[^`\\]|\\.)*`/g, '""')))
  throw new Error('dist/cli.cjs calls import() on something other than a lazy bundle: add it to LAZY');
// One character past ASCII and V8 holds the whole source two bytes a character (twice the memory at
// every start, and a garbage collection). esbuild escapes strings, not regular expressions: write `\u00b7`.
const wide = /[^\t\n\r\x20-\x7e]/.exec(handed);
if (wide)
  throw new Error(
    `dist/cli.cjs holds ${JSON.stringify(wide[0])} near ${JSON.stringify(handed.slice(Math.max(0, wide.index - 40), wide.index + 20))}: escape it in the source`,
  );
writeFileSync(cliFile, handed);
await build({ ...common, plugins: [stubs], entryPoints: Object.fromEntries(Object.entries(LAZY).map(([file, name]) => [`lazy/${name}`, file])) });
// The banner's require and __filename serve a bundled CommonJS package; a lazy bundle or chunk that names neither drops
// the banner's line (left empty, so its source map still lines up): a few hundred bytes a file in the package.
for (const folder of ['lazy', 'chunks']) {
  for (const name of readdirSync(`${out}/${folder}`).filter((n) => n.endsWith('.js'))) {
    const path = `${out}/${folder}/${name}`;
    const text = readFileSync(path, 'utf8');
    const rest = text.slice(common.banner.js.length);
    if (text.startsWith(`${common.banner.js}\n`) && !/\b(?:require|__filename)\b/.test(rest)) writeFileSync(path, rest);
  }
}
await build({
  ...common,
  splitting: false,
  format: 'cjs',
  banner: {},
  outdir: undefined,
  outfile: `${out}/lazy/git.cjs`,
  stdin: { contents: GIT_LAZY.map((file) => `export * from './${file}';`).join('\n'), resolveDir: root, sourcefile: 'git-layer.ts', loader: 'ts' },
});
await build({
  ...common,
  chunkNames: 'dev-chunks/[name]-[hash]',
  plugins: [stubs],
  entryPoints: {
    app: 'src/library.ts',
    'prebuild-flows': 'src/tools/prebuild-flows.ts',
    'prebuild-skills': 'src/tools/prebuild-skills.ts',
    bench: 'bench/run.ts',
    fuzz: 'test/fuzz/main.ts',
  },
});

execFileSync(process.execPath, [`${out}/prebuild-flows.js`, `${out}/flows.json`], { stdio: 'inherit' });
execFileSync(process.execPath, [`${out}/prebuild-skills.js`, `${out}/skills.json`], { stdio: 'inherit' });

const old = `dist.old-${process.pid}`;
if (existsSync('dist')) renameSync('dist', old);
renameSync(out, 'dist');
rmSync(old, { recursive: true, force: true });
