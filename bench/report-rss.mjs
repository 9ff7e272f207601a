// Preloaded by the bench (`node --import <this file> …`): when the process
// exits, writes its peak resident set size in KiB (process.resourceUsage().maxRSS)
// to the file named by AUTOPILOT_BENCH_RSS_FILE. Shipped as a plain file, not
// bundled, so it can be loaded into any Node process, the CLI included.
import { writeFileSync } from 'node:fs';

const file = process.env.AUTOPILOT_BENCH_RSS_FILE;
if (file) {
  process.on('exit', () => {
    writeFileSync(file, `${process.resourceUsage().maxRSS}\n`);
  });
}
