/** `autopilot mcp`: the same commands as an MCP server over stdio, until the client closes it. */
import type { FrontEnd } from './command.js';

export const mcp: FrontEnd = {
  name: 'mcp',
  summary: 'serve the same operations as an MCP server over stdio, until the client closes it',
  // The server (src/mcp/) is a front end over this registry, started by the command line.
  frontEnd: 'mcp',
  mcp: { omitted: 'it is the MCP server' },
};
