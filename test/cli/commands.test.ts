/**
 * The `secrets-vault` command is a list of commands, one module each: the top-level help, the
 * option table and the check that a flag belongs to the command it was given to all come from
 * that list. These tests hold the list to that shape, and prove through the built command that
 * every flag and every command in it reaches the user.
 */
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Flag } from '../../src/cli/command.js';
import { COMMANDS } from '../../src/cli/commands/index.js';
import * as sharedFlags from '../../src/cli/flags.js';
import { useCommand } from './harness.js';

const command = useCommand();

/** Every flag of the list with the commands that take it (every command, for a global one). */
function flagsAndTakers(): Map<Flag, string[]> {
  const takers = new Map<Flag, string[]>();
  for (const { name, flags } of COMMANDS) {
    for (const { flag } of flags) takers.set(flag, [...(takers.get(flag) ?? []), name]);
  }
  for (const flag of sharedFlags.GLOBAL_FLAGS)
    takers.set(
      flag,
      COMMANDS.map(({ name }) => name),
    );
  return takers;
}

/** The arguments that give `flag` once, with a value when it takes one. */
// Any value does (the flag is refused before it is used); a file's name, for `--env-file`.
const given = (flag: Flag) => [`--${flag.name}`, ...(flag.type === 'string' ? ['/dev/null'] : [])];

describe('main', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('can be imported without running, then runs when called', async () => {
    const exitCode = process.exitCode;
    const stdout = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const { main } = await import('../../src/cli/main.js');
    expect(process.exitCode).toBe(exitCode);
    expect(stdout).not.toHaveBeenCalled();
    expect(stderr).not.toHaveBeenCalled();

    const { version } = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };
    expect(await main(['--version'])).toBe(0);
    expect(stdout.mock.calls).toEqual([[`${version}\n`]]);
    expect(process.exitCode).toBe(exitCode);
  });
});

describe('the list of commands', () => {
  it('declares every flag once: in the module of its only command, or in the shared list', () => {
    const byName = new Map<string, Set<Flag>>();
    for (const flag of flagsAndTakers().keys()) {
      byName.set(flag.name, new Set([...(byName.get(flag.name) ?? []), flag]));
    }
    for (const [name, declarations] of byName) {
      expect(declarations.size, `--${name} is declared ${declarations.size} times`).toBe(1);
    }
    const shared = new Set<unknown>(Object.values(sharedFlags));
    for (const [flag, takers] of flagsAndTakers()) {
      if (takers.length > 1) expect(shared.has(flag), `--${flag.name} is shared`).toBe(true);
    }
    for (const { name, flags } of COMMANDS) {
      const names = flags.map(({ flag }) => flag.name);
      expect(new Set(names).size, `${name} lists a flag twice`).toBe(names.length);
    }
  });

  it('lists every command in the top-level help, with its synopsis and summary', async () => {
    const result = await command.run(['--help']);
    expect(result.code).toBe(0);
    for (const { name, synopsis, summary } of COMMANDS) {
      expect(result.stdout).toContain(`\n  ${name} ${synopsis[0]}\n`);
      expect(result.stdout).toContain(`${summary}\n`);
    }
    for (const flag of sharedFlags.GLOBAL_FLAGS) expect(result.stdout).toContain(`--${flag.name}`);
  });

  it.each(COMMANDS.map(({ name, flags }) => [name, flags] as const))(
    'describes every documented flag of %s in its help',
    async (name, flags) => {
      const result = await command.run([name, '--help']);
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(new RegExp(`^Usage: secrets-vault ${name} `));
      for (const { flag, help } of flags) {
        if (help === undefined) continue;
        expect(help).toContain(`--${flag.name}`);
        expect(result.stdout).toContain(help);
      }
    },
  );

  const foreign = [...flagsAndTakers()].flatMap(([flag, takers]) =>
    COMMANDS.filter(({ name }) => !takers.includes(name)).map(
      ({ name }) => [`--${flag.name}`, name, flag, takers] as const,
    ),
  );

  it('has flags that only some commands take', () => {
    expect(foreign.length).toBeGreaterThan(0);
  });

  it.each(foreign)(
    'refuses %s given to %s, naming the command it belongs to',
    async (flagText, name, flag, takers) => {
      // A command that reads a vault gets one, so that the foreign flag is the only mistake.
      const readsVault = COMMANDS.find((listed) => listed.name === name)?.flags.some(
        (listed) => listed.flag === sharedFlags.VAULT,
      );
      const vault = readsVault ? ['--vault', 'v'] : [];
      const result = await command.run([name, ...vault, ...given(flag)]);
      expect(result.code).toBe(2);
      expect(result.stdout).toBe('');
      const [line, ...more] = result.stderr.split('\n');
      expect(more).toEqual(['']);
      const owners = new RegExp(
        `^secrets-vault: ${flagText} belongs to (.+) \\(see secrets-vault ${name} --help\\)$`,
      ).exec(line ?? '')?.[1];
      expect(owners?.split(/,? and |, /)).toEqual(takers);
    },
  );
});
