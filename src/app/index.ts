/**
 * The command layer as a library: what every front end calls (the CLI, the
 * MCP server, the fault tests' workers). Bundled as `dist/app.js`.
 */
export { runCheck } from './check.js';
export { DEFAULT_SESSION, sessionOf, type Context } from './context.js';
export { runInit } from './init.js';
export { viewJson } from './json.js';
export { runLog } from './log.js';
export { runStatus } from './status.js';
export { runStep, type StepRequest, type StepResult } from './step.js';
export { errorJson, exitCodeOfError } from '../errors.js';
export { listCheckpoints, runCheckpoint, runRestore } from './checkpoints.js';
export { runRepin } from './repin.js';
export { runReport } from './report.js';
