/**
 * The help of `secrets-vault` as a user reads it: what it says of an option or an exit code must
 * hold for every command it says it of. `mock` reads no vault, so it neither takes `--wait` nor
 * leaves with the codes of an outage or a refused token.
 */
import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../../src/cli/commands/index.js';
import { WAIT } from '../../src/cli/flags.js';
import { useCommand } from './harness.js';

const command = useCommand();

const takesWait = (name: string) =>
  COMMANDS.some((listed) => listed.name === name && listed.flags.some(({ flag }) => flag === WAIT));

/** Whether `text` names the command `name` as a word of its own. */
const names = (text: string, name: string) => new RegExp(`\\b${name}\\b`).test(text);

/** The lines of `help` from the first one `start` matches to the line before the first that `end` matches. */
function section(help: string, start: RegExp, end: RegExp): string {
  const lines = help.split('\n');
  const first = lines.findIndex((line) => start.test(line));
  expect(first, `a line matching ${start}`).toBeGreaterThan(-1);
  const after = lines.slice(first + 1).findIndex((line) => end.test(line));
  return lines.slice(first, after === -1 ? undefined : first + 1 + after).join('\n');
}

describe('the top-level help', () => {
  it('is about a list where some commands take --wait and mock does not', () => {
    expect(takesWait('mock')).toBe(false);
    expect(COMMANDS.filter(({ name }) => takesWait(name)).length).toBeGreaterThan(0);
  });

  it('names, under --wait, exactly the commands that take it', async () => {
    const { code, stdout } = await command.run(['--help']);
    expect(code).toBe(0);
    // The option's lines: up to the next option, or the end of the section.
    const wait = section(stdout, /^ {2}--wait /, /^ {2}-|^$/);
    for (const { name } of COMMANDS) {
      expect(names(wait, name), `${name} under --wait`).toBe(takesWait(name));
    }
  });

  it('gives 75 and 77 only for the commands that read the service, and says how mock exits', async () => {
    const { stdout } = await command.run(['--help']);
    const exitCodes = section(stdout, /^Exit codes/, /^$/);
    const line = (exitCode: number) =>
      exitCodes.split('\n').find((text) => new RegExp(`^ *${exitCode}\\b`).test(text)) ?? '';
    for (const exitCode of [75, 77]) {
      expect(line(exitCode), `the line of ${exitCode}`).not.toBe('');
      for (const { name } of COMMANDS) {
        expect(names(line(exitCode), name), `${name} for ${exitCode}`).toBe(takesWait(name));
      }
    }
    expect(line(0)).toMatch(/\bmock\b.*SIGINT or SIGTERM/);
  });
});

describe("a command's help", () => {
  it.each(COMMANDS.map(({ name }) => [name]))(
    'lists 75 and 77 for %s only if it reads the service',
    async (name) => {
      const { code, stdout } = await command.run([name, '--help']);
      expect(code).toBe(0);
      const exitCodes = section(stdout, /^Exit codes/, /^$/);
      expect(exitCodes).toMatch(/\b2 for a usage error, 1 for anything else\./);
      expect(/\b75\b/.test(exitCodes), `75 in ${name}'s help`).toBe(takesWait(name));
      expect(/\b77\b/.test(exitCodes), `77 in ${name}'s help`).toBe(takesWait(name));
    },
  );
});
