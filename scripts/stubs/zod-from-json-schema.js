// Stands in for zod's `fromJSONSchema` in autopilot's bundles (scripts/build.mjs): zod's namespace
// exports it, so a bundler cannot trim it, and the MCP server only turns zod schemas into JSON
// Schema, never back. A call says so. Saves 12 KB of the MCP bundle.
export function fromJSONSchema() {
  throw new Error("zod's fromJSONSchema is not in autopilot's bundle");
}
