/** Who is running: host name, a machine id that survives a rename of the host, and this process. */
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { hashText } from '../hash.js';

export interface Machine {
  host: string;
  /** /etc/machine-id where there is one (Linux), else derived from the host name. */
  machine: string;
  pid: number;
}

let cached: Machine | undefined;

function machineId(host: string): string {
  for (const file of ['/etc/machine-id', '/var/lib/dbus/machine-id']) {
    try {
      const id = readFileSync(file, 'utf8').trim();
      if (/^[0-9a-f]{16,64}$/i.test(id)) return id.slice(0, 32);
    } catch {
      // Not on this system.
    }
  }
  return `host-${hashText(host).slice(0, 16)}`;
}

export function thisMachine(): Machine {
  if (cached) return cached;
  const host = hostname();
  // Tests stand a second machine up with AUTOPILOT_MACHINE_ID; nothing else should set it.
  cached = { host, machine: process.env.AUTOPILOT_MACHINE_ID || machineId(host), pid: process.pid };
  return cached;
}

/** Whether a process of this machine is alive. */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
