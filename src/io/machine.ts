/** Who is running: host name, a machine id that survives a rename of the host, and this process. */
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { hashText } from '../hash.js';

export interface Machine {
  host: string;
  /** The platform's machine id (Linux `/etc/machine-id`, macOS `IOPlatformUUID`, Windows `MachineGuid`), else derived from the host name. */
  machine: string;
  pid: number;
}

let cached: Machine | undefined;

/** How the machine id is read: injected by tests, the real file and commands otherwise. */
export interface MachineReaders {
  platform: NodeJS.Platform;
  readFile: (file: string) => string;
  /** Runs a command with arguments and returns its stdout (throws when it fails). */
  run: (command: string, args: string[]) => string;
}

const REAL: MachineReaders = {
  platform: process.platform,
  readFile: (file) => readFileSync(file, 'utf8'),
  // child_process is loaded on the call (macOS and Windows only): it brings net and streams with it.
  run: (command, args) =>
    process
      .getBuiltinModule('node:child_process')
      .execFileSync(command, args, { encoding: 'utf8', timeout: 2000, stdio: ['ignore', 'pipe', 'ignore'], windowsHide: true }),
};

const attempt = (read: () => string | undefined): string | undefined => {
  try {
    return read();
  } catch {
    return undefined; // Not on this system.
  }
};

/** The platform's own id of this machine, lower-cased hex without dashes (at most 32), or undefined. */
export function platformMachineId(r: MachineReaders): string | undefined {
  const clean = (id: string | undefined) => {
    const hex = id?.trim().replace(/[{}-]/g, '').toLowerCase();
    return hex && /^[0-9a-f]{16,64}$/.test(hex) ? hex.slice(0, 32) : undefined;
  };
  if (r.platform === 'darwin') {
    // `ioreg -rd1 -c IOPlatformExpertDevice` prints `"IOPlatformUUID" = "XXXXXXXX-…"`.
    return clean(attempt(() => /"IOPlatformUUID"\s*=\s*"([^"]+)"/.exec(r.run('ioreg', ['-rd1', '-c', 'IOPlatformExpertDevice']))?.[1]));
  }
  if (r.platform === 'win32') {
    // `reg query HKLM\SOFTWARE\Microsoft\Cryptography /v MachineGuid` prints `MachineGuid    REG_SZ    xxxxxxxx-…`.
    const out = attempt(() => r.run('reg', ['query', 'HKLM\\SOFTWARE\\Microsoft\\Cryptography', '/v', 'MachineGuid']));
    return clean(out ? /MachineGuid\s+REG_SZ\s+(\S+)/i.exec(out)?.[1] : undefined);
  }
  for (const file of ['/etc/machine-id', '/var/lib/dbus/machine-id']) {
    const id = clean(attempt(() => r.readFile(file)));
    if (id) return id;
  }
  return undefined;
}

export function machineId(host: string, readers: MachineReaders = REAL): string {
  return platformMachineId(readers) ?? `host-${hashText(host).slice(0, 16)}`;
}

export function thisMachine(): Machine {
  if (cached) return cached;
  const host = hostname();
  // Tests stand a second machine up with AUTOPILOT_MACHINE_ID; nothing else should set it.
  cached = { host, machine: process.env.AUTOPILOT_MACHINE_ID || machineId(host), pid: process.pid };
  return cached;
}
