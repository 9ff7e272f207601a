/** A registry key as an MCP tool's argument name: `takeOver` → `take_over`. A module of its own, so the MCP bundle takes it without the registry. */
export const snakeCase = (key: string) => key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
