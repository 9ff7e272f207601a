/**
 * The registry: every command, in the order `autopilot --help` lists them.
 * A new command is one file in this folder and one line here; the command
 * line and the MCP server pick it up from this list.
 */
import { ack } from './ack.js';
import { adopt } from './adopt.js';
import { breadcrumb } from './breadcrumb.js';
import { check } from './check.js';
import { checkpoint } from './checkpoint.js';
import { checkpoints } from './checkpoints.js';
import type { Command, FrontEnd } from './command.js';
import { decide } from './decide.js';
import { done } from './done.js';
import { exec } from './exec.js';
import { fail } from './fail.js';
import { hook } from './hook.js';
import { init } from './init.js';
import { lease } from './lease.js';
import { log } from './log.js';
import { mcp } from './mcp.js';
import { next } from './next.js';
import { repin } from './repin.js';
import { report } from './report.js';
import { reset } from './reset.js';
import { restore } from './restore.js';
import { runs } from './runs.js';
import { skip } from './skip.js';
import { status } from './status.js';
import { substep } from './substep.js';
import { uninstall } from './uninstall.js';

// Each command's argument type is its own; the front ends read arguments by the specs (`readArguments`).
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyCommand = Command<any, any>;

export const COMMANDS: readonly (AnyCommand | FrontEnd)[] = [
  status,
  runs,
  next,
  substep,
  done,
  fail,
  skip,
  exec,
  decide,
  ack,
  adopt,
  mcp,
  hook,
  init,
  uninstall,
  breadcrumb,
  report,
  lease,
  repin,
  checkpoint,
  checkpoints,
  restore,
  reset,
  check,
  log,
];
