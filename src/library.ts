/**
 * The command layer as a library, for programs that drive autopilot in
 * process (the fault tests' workers): the commands of `src/app/` and the
 * JSON their answers render to. Bundled as `dist/app.js`.
 */
export { listCheckpoints, runCheckpoint, runRestore } from './app/checkpoints.js';
export { runCheck } from './app/check.js';
export { DEFAULT_SESSION, sessionOf, type Context } from './app/context.js';
export { runInit } from './app/init.js';
export { runLog } from './app/log.js';
export { runRepin } from './app/repin.js';
export { runReport } from './app/report.js';
export { runStatus } from './app/status.js';
export { runStep, type StepRequest, type StepResult } from './app/step.js';
export { errorJson, exitCodeOfError } from './errors.js';
export { viewJson } from './render/json.js';
