/** The commands of `secrets-vault`, one module each. */
import type { Command } from '../command.js';
import { agentCommand } from './agent.js';
import { exportCommand } from './export.js';
import { getCommand } from './get.js';
import { injectCommand } from './inject.js';
import { lsCommand } from './ls.js';
import { mockCommand } from './mock.js';
import { rmCommand } from './rm.js';
import { runCommand } from './run.js';
import { setCommand } from './set.js';

/**
 * @internal Every command, in the order the top-level help lists them. The option table, the
 * flag-ownership check and the top-level help are derived from this list: adding a command here
 * is all it takes to make it known.
 */
export const COMMANDS: readonly Command[] = [
  runCommand,
  exportCommand,
  injectCommand,
  lsCommand,
  getCommand,
  setCommand,
  rmCommand,
  mockCommand,
  agentCommand,
];
