// One of the swarm: imports the bundled command layer, says "ready", waits for "go" on stdin, then
// calls runStep `count` times on one repository with the shared session and prints what each call
// answered as one JSON array.
// argv: <dist/app.js> <repo dir> <worker id> <count> <seed> <session>
import { pathToFileURL } from 'node:url';

const [appPath, dir, id, countText, seedText, session] = process.argv.slice(2);
const app = await import(pathToFileURL(appPath).href);
const count = Number(countText);

let s = Number(seedText) >>> 0 || 1;
const random = () => {
  s ^= s << 13;
  s >>>= 0;
  s ^= s >>> 17;
  s ^= s << 5;
  s >>>= 0;
  return s / 0x1_0000_0000;
};

process.stdout.write('ready\n');
await new Promise((resolve) => {
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (d) => d.includes('go') && resolve());
});

const ctx = { repo: { dir }, session, now: () => new Date(), lockWaitMs: 120_000 };
const results = [];
for (let i = 0; i < count; i++) {
  const r = random();
  let op;
  if (r < 0.35) op = { type: 'substep', text: `w${id}-${i} progress` };
  else if (r < 0.6) op = { type: 'next' };
  else if (r < 0.85) op = { type: 'fail', reason: `w${id}-${i} broke` };
  else op = { type: 'ack' };
  try {
    const result = await app.runStep(ctx, { event: op });
    results.push({
      op,
      exit: result.exit,
      outcome: result.view.outcome?.kind,
      written: result.written.entries.map((e) => ({ seq: e.seq, event: e.event })),
    });
  } catch (error) {
    results.push({ op, exit: app.exitCodeOfError(error), error: app.errorJson(error).error, written: [] });
  }
}
process.stdout.write(JSON.stringify(results) + '\n');
process.stdin.destroy();
