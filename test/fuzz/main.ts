/**
 * `npm run fuzz -- --cases 100000 [--seed S] [--target NAME]`: a long fuzz
 * run. Prints one line per target and the closing line; exits 1 on any crash
 * or case over one second, naming the seed and where each input was saved.
 * `--target NAME --case N --seed S` replays the one case a failure named.
 */
import { closingLine, failureLines } from './harness.js';
import { fuzz, randomSeed } from './run.js';

function option(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

const cases = Number(option('cases') ?? 10_000);
const seed = option('seed') !== undefined ? Number(option('seed')) : randomSeed();
const target = option('target');
const only = option('case') !== undefined ? Number(option('case')) : undefined;
if (!Number.isInteger(cases) || cases < 1 || !Number.isInteger(seed) || (only !== undefined && (!Number.isInteger(only) || !target))) {
  console.error('usage: npm run fuzz -- [--cases N] [--seed S] [--target parse-flow|front-matter|cli [--case N]]');
  process.exit(2);
}

const started = performance.now();
const counts = await fuzz({
  seed,
  ...(only !== undefined ? { cases: 1, first: only } : { cases }),
  ...(target ? { target } : {}),
  progress: (name, c, ms) =>
    console.log(`  ${name}: ${c.cases} cases, ${c.accepted} accepted, ${c.refused} refused, ${c.crashes} crashes, ${c.slow} slow, ${(ms / 1000).toFixed(1)} s`),
});
for (const line of failureLines(counts, seed)) console.error(line);
console.log(`  ${Math.round((performance.now() - started) / 1000)} s`);
console.log(closingLine(counts, seed));
process.exitCode = counts.crashes > 0 || counts.slow > 0 ? 1 : 0;
