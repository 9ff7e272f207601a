// Stands in for zod's schema compiler (`compile`, zod 4.6) in autopilot's bundles (scripts/build.mjs):
// zod's core namespace exports it, so a bundler cannot trim it, and neither the MCP SDK nor autopilot
// compiles a schema. A call says so. Saves 29 KB of the MCP bundle.
const absent = (name) => () => {
  throw new Error(`zod's ${name} is not in autopilot's bundle`);
};
export const INVALID = Symbol.for('zod.compile.invalid');
export class ZodCompileAsyncError extends Error {}
export class ZodCompileUnsupportedError extends Error {}
export const compile = absent('compile');
export const withParser = absent('withParser');
export const compileFn = absent('compileFn');
