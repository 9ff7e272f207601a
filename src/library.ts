/**
 * The command layer as a library, for programs that drive autopilot in
 * process (the fault tests' workers): the commands of `src/app/` and the
 * JSON their answers render to. Bundled as `dist/app.js`.
 */
export { listCheckpoints, runCheckpoint, runRestore } from './app/transaction/checkpoints.js';
export { runCheck } from './app/views/check.js';
export { DEFAULT_SESSION, sessionOf, type Context } from './app/transaction/context.js';
export { runInit } from './app/setup/init.js';
export { runLog } from './app/transaction/log.js';
export { runRepin } from './app/setup/repin.js';
export { runReport } from './app/views/report.js';
export { runStatus } from './app/views/status.js';
export { runStep, type StepRequest, type StepResult } from './app/step/run-step.js';
export { errorJson, exitCodeOfError } from './errors.js';
export { viewJson } from './render/json.js';
