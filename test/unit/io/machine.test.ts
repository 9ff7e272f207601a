import { describe, expect, it } from 'vitest';
import { machineId, type MachineReaders } from '../../../src/io/machine.js';

const none = () => {
  throw new Error('not here');
};
const readers = (over: Partial<MachineReaders>): MachineReaders => ({ platform: 'linux', readFile: none, run: none, ...over });

describe('the machine id survives a rename of the host', () => {
  it('macOS: the IOPlatformUUID ioreg prints, whatever the host is called', () => {
    const ioreg = '+-o J314sAP  <class IOPlatformExpertDevice>\n    "IOPlatformUUID" = "4C4C4544-0042-3510-8044-B4C04F565931"\n';
    const r = readers({ platform: 'darwin', run: (cmd, args) => (cmd === 'ioreg' && args.includes('IOPlatformExpertDevice') ? ioreg : none()) });
    expect(machineId('old-name', r)).toBe('4c4c4544004235108044b4c04f565931');
    expect(machineId('new-name', r)).toBe(machineId('old-name', r));
  });

  it('Windows: the registry’s MachineGuid, whatever the host is called', () => {
    const reg = '\r\nHKEY_LOCAL_MACHINE\\SOFTWARE\\Microsoft\\Cryptography\r\n    MachineGuid    REG_SZ    8f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b\r\n';
    const r = readers({ platform: 'win32', run: (cmd, args) => (cmd === 'reg' && args.includes('MachineGuid') ? reg : none()) });
    expect(machineId('DESKTOP-OLD', r)).toBe('8f1e2d3c4b5a69788a9b0c1d2e3f4a5b');
    expect(machineId('DESKTOP-NEW', r)).toBe(machineId('DESKTOP-OLD', r));
  });

  it('Linux: /etc/machine-id', () => {
    const r = readers({ readFile: (f) => (f === '/etc/machine-id' ? '0123456789abcdef0123456789abcdef\n' : none()) });
    expect(machineId('a', r)).toBe('0123456789abcdef0123456789abcdef');
  });

  it('where the platform gives nothing readable, the host name stands in (it changes with a rename)', () => {
    expect(machineId('a', readers({ platform: 'darwin', run: () => 'garbage' }))).toMatch(/^host-/);
    expect(machineId('a', readers({ platform: 'win32' }))).not.toBe(machineId('b', readers({ platform: 'win32' })));
  });
});
