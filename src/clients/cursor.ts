/**
 * Cursor: `init` sets up the `/autopilot` command (`.cursor/commands/`) and
 * the MCP server in `.cursor/mcp.json`. Nothing of its ids is verified yet
 * (its hooks send `conversation_id`, not used), so it names no session.
 */
import type { Client } from './client.js';
import { ours, oursRemoved, withMcpServer, withoutMcpServer } from './config-files.js';
import { autopilotCommand, TEXT_MARK } from './instructions.js';

export const cursor: Client = {
  id: 'cursor',
  name: 'Cursor',
  // The editor, and its agent on the command line.
  processNames: ['cursor', 'cursor-agent'],
  folders: ['.cursor/commands', '.cursor'],
  files: (launch) => [
    {
      path: '.cursor/commands/autopilot.md',
      make: ours(autopilotCommand(launch.bin), TEXT_MARK),
      unmake: oursRemoved(autopilotCommand(launch.bin), TEXT_MARK),
    },
    { path: '.cursor/mcp.json', make: (t) => withMcpServer(t, '.cursor/mcp.json', launch), unmake: (t) => withoutMcpServer(t, '.cursor/mcp.json') },
  ],
  sessionEnv: [],
  commandEnv: [],
  mcpMeta: [],
  ranHook: () => false,
  instructions: '/autopilot',
};
