/** `autopilot mcp`: the same commands as an MCP server over stdio, until the client closes it. */
import type { FrontEnd } from './command.js';

export const mcp: FrontEnd = {
  name: 'mcp',
  summary: 'serve the same operations as an MCP server over stdio, until the client closes it',
  examples: [
    { line: 'autopilot mcp', does: 'serve MCP over stdio (an agent client starts it, as .mcp.json says)' },
    { line: 'autopilot --docs docs mcp', does: 'the same, for a docs folder named docs' },
  ],
  // The server (src/mcp/) is a front end over this registry, started by the command line.
  frontEnd: 'mcp',
  mcp: { omitted: 'it is the MCP server' },
};
