// A process that stays open and runs autopilot commands as its own children, one at a time: a person's terminal,
// or (copied as `claude.mjs`, a name autopilot takes for an agent client) a conversation whose process holds the lease.
// stdin: one JSON line a command, {"bin": "...", "args": [...], "env": {...}}; stdout: one JSON line a result,
// {"code": 0, "stdout": "...", "stderr": "..."}. It ends when stdin closes or when it is killed.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

const lines = createInterface({ input: process.stdin });
process.stdout.write(JSON.stringify({ ready: process.pid }) + '\n');
for await (const text of lines) {
  const { bin, args, env } = JSON.parse(text);
  const result = await new Promise((resolve) => {
    const child = spawn(process.execPath, [bin, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
  process.stdout.write(JSON.stringify(result) + '\n');
}
