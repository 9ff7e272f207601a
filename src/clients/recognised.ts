/**
 * The agents autopilot only recognises: it sets nothing up for them and reads
 * no id of theirs, but a command line call with one of their processes above
 * it belongs to that conversation (`io/conversation.ts`), so the lease knows
 * at once when the conversation has ended. Each is a client entry with its
 * process names and nothing else.
 */
import type { Client } from './client.js';

/** A client known by its process alone: no files, no folders, no ids, no hooks. */
function recognised(id: string, name: string, processNames: readonly string[]): Client {
  return {
    id,
    name,
    processNames,
    files: () => [],
    folders: [],
    sessionEnv: [],
    commandEnv: [],
    mcpMeta: [],
    ranHook: () => false,
    instructions: '/autopilot',
  };
}

export const gemini = recognised('gemini', 'Gemini CLI', ['gemini']);
export const opencode = recognised('opencode', 'opencode', ['opencode']);
export const goose = recognised('goose', 'Goose', ['goose']);
export const aider = recognised('aider', 'Aider', ['aider']);
export const amp = recognised('amp', 'Amp', ['amp']);
