/**
 * What a job costs: `secrets-vault run` (the package's command, `dist/cli.js`, as a real
 * process) against the same job written by hand (bench/job-raw.js: `fetch`, variables, spawn),
 * and `secrets-vault run --exec`, which becomes the command instead of staying its parent.
 *
 * Each job loads the values vault (500 secrets, 1,500 variables) from the loopback server and
 * starts one command: `/bin/sh -c 'echo started $$ $SERVICE_0500_HOST; exec sleep 60'`, a
 * program that costs next to nothing to start and prints its own process id and one secret.
 * For each job it measures:
 *
 * - the time from spawning the job to the command's line on the pipe (the command has started
 *   and has the secrets);
 * - the memory resident beside the command while it runs: the `VmRSS` (Linux `/proc`) of every
 *   process of the job's tree other than the command, read `settleMs` after the command started.
 *   With `--exec` the command's process id must be the job's, and nothing else is left: 0.
 *
 * Then it ends the command (SIGTERM to it) and checks the job ends with it. Contenders are
 * interleaved round by round (rotated, and reversed every other round), after warm-up rounds.
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { cleanEnv } from './fleet/processes.ts';
import { benchFile, median, now, quantile } from './lib.ts';

/** The three jobs, in the order of the table's columns. */
export const JOB_NAMES = ['raw', 'run', 'exec'] as const;
/** One of the three jobs. */
export type JobName = (typeof JOB_NAMES)[number];
/** The column title of each job. */
export const JOB_TITLES: Record<JobName, string> = {
  raw: 'raw script',
  run: 'secrets-vault run',
  exec: 'run --exec',
};

/** What to measure against, and how much. */
export interface JobPlan {
  readonly baseUrl: string;
  readonly token: string;
  readonly vaultId: string;
  /** A secret of the vault the command prints, and the value it must have. */
  readonly probe: { readonly variable: string; readonly value: string };
  readonly rounds: number;
  readonly warmupRounds: number;
  /** How long after the command started its job's memory is read. */
  readonly settleMs: number;
}

/** One job's figure: the median of its rounds, its spread, and each round's value. */
export interface JobSamples {
  readonly median: number;
  readonly p25: number;
  readonly p75: number;
  readonly rounds: number[];
}

/** Everything measured: per job, the start time (ms) and the memory beside the command (MB). */
export interface JobResult {
  readonly startMs: Record<JobName, JobSamples>;
  readonly residentMb: Record<JobName, JobSamples>;
  /** Each job over the raw script: the median of each round's own ratio. */
  readonly startOverRaw: Record<Exclude<JobName, 'raw'>, number>;
  readonly residentOverRaw: Record<Exclude<JobName, 'raw'>, number>;
  /** The command line each job ran, with `<vault>` for the vault id. */
  readonly commands: Record<JobName, string>;
}

/** How long a job may take to start its command before the bench gives up on it. */
const START_CAP_MS = 30_000;
const SHELL_LINE = /^started (\d+) (.*)$/m;

/** The command each job starts, given the variable it prints. */
function command(variable: string): string[] {
  // `exec`: the sleep takes the shell's process id, so the command stays one process; it ends
  // by itself after 60 s should the bench die before it ends it.
  return ['/bin/sh', '-c', `echo "started $$ $${variable}"; exec sleep 60`];
}

/** The arguments of `node` for each job. */
function jobArguments(name: JobName, vaultId: string, variable: string): string[] {
  const cli = benchFile('../dist/cli.js');
  switch (name) {
    case 'raw':
      return [benchFile('./job-raw.js'), vaultId, ...command(variable)];
    case 'run':
      return [cli, 'run', '--vault', vaultId, '--', ...command(variable)];
    case 'exec':
      return [cli, 'run', '--exec', '--vault', vaultId, '--', ...command(variable)];
  }
}

/** Whether this system can run the job figures: a POSIX shell, and `/proc` for the memory. */
export function jobsSupported(): boolean {
  return process.platform === 'linux';
}

/** Runs the rounds and returns every figure; rejects on any job that misbehaves. */
export async function measureJobs(plan: JobPlan): Promise<JobResult> {
  const env = cleanEnv({ SECRETS_VAULT_BASE_URL: plan.baseUrl, SECRETS_VAULT_TOKEN: plan.token });
  const start = emptySamples();
  const resident = emptySamples();
  for (let round = -plan.warmupRounds; round < plan.rounds; round += 1) {
    for (const name of orderOf(round + plan.warmupRounds)) {
      const outcome = await runJob(name, plan, env);
      if (round < 0) continue;
      start[name].push(outcome.startMs);
      resident[name].push(outcome.residentKb / 1024);
    }
  }
  const ratios = (samples: Record<JobName, number[]>) => ({
    run: pairedRatio(samples.run, samples.raw),
    exec: pairedRatio(samples.exec, samples.raw),
  });
  const summary = (samples: Record<JobName, number[]>) =>
    Object.fromEntries(JOB_NAMES.map((name) => [name, summarize(samples[name])])) as Record<
      JobName,
      JobSamples
    >;
  const shown = (name: JobName) =>
    ['node', ...jobArguments(name, '<vault>', plan.probe.variable).map(relative)]
      .map((part) => (/[\s$;"]/.test(part) ? `'${part}'` : part))
      .join(' ');
  return {
    startMs: summary(start),
    residentMb: summary(resident),
    startOverRaw: ratios(start),
    residentOverRaw: ratios(resident),
    commands: { raw: shown('raw'), run: shown('run'), exec: shown('exec') },
  };
}

/** One job: spawned, timed to its command's line, its memory read, then ended. */
function runJob(
  name: JobName,
  plan: JobPlan,
  env: NodeJS.ProcessEnv,
): Promise<{ startMs: number; residentKb: number }> {
  return new Promise((resolve, reject) => {
    const fail = (why: string) =>
      reject(new Error(`bench job ${name} failed: ${why}${stderr ? `\n${stderr.trim()}` : ''}`));
    const spawned = now();
    const job = spawn(process.execPath, jobArguments(name, plan.vaultId, plan.probe.variable), {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let commandPid: number | undefined;
    let measured: { startMs: number; residentKb: number } | undefined;
    const cap = setTimeout(() => {
      job.kill('SIGKILL');
      fail(`its command did not start within ${START_CAP_MS / 1000} s`);
    }, START_CAP_MS);
    job.stderr.setEncoding('utf8');
    job.stderr.on('data', (chunk: string) => {
      stderr = (stderr + chunk).slice(-2000);
    });
    job.stdout.setEncoding('utf8');
    job.stdout.on('data', (chunk: string) => {
      if (commandPid !== undefined) return;
      const startMs = now() - spawned;
      stdout += chunk;
      const line = SHELL_LINE.exec(stdout);
      if (line === null) return;
      clearTimeout(cap);
      commandPid = Number(line[1]);
      const pid = commandPid;
      if (line[2] !== plan.probe.value) {
        process.kill(pid, 'SIGKILL');
        fail(`its command got ${plan.probe.variable}=${JSON.stringify(line[2])}`);
        return;
      }
      setTimeout(() => {
        if (job.exitCode !== null || job.signalCode !== null) return; // Failed already.
        const tree = jobTree(job.pid ?? -1);
        const others = tree.filter((other) => other !== pid);
        // --exec leaves nothing behind only if the command took over the job's own process.
        const problem =
          name === 'exec'
            ? pid !== job.pid || others.length > 0
              ? `the command's pid ${pid} is not the job's ${job.pid}, or other processes remain`
              : undefined
            : pid === job.pid || !tree.includes(pid)
              ? `the command (pid ${pid}) is not a child of the job (pid ${job.pid})`
              : undefined;
        measured = { startMs, residentKb: others.reduce((sum, other) => sum + rssKb(other), 0) };
        process.kill(pid, 'SIGTERM');
        if (problem !== undefined) fail(problem);
      }, plan.settleMs);
    });
    job.once('error', (error) => {
      clearTimeout(cap);
      fail(error.message);
    });
    job.once('close', (code, signal) => {
      clearTimeout(cap);
      // Ended by SIGTERM to the command: a parent exits 143 (128 + 15), an exec'd job by it.
      const ended = name === 'exec' ? signal === 'SIGTERM' : code === 143;
      if (measured === undefined) {
        fail(`it ended (code ${code}, signal ${signal}) before its command was measured`);
      } else if (!ended) {
        fail(`it ended with code ${code}, signal ${signal}, not by the command's SIGTERM`);
      } else {
        resolve(measured);
      }
    });
  });
}

/** The process `root` and all its descendants alive now, from `/proc/<pid>/stat`. */
function jobTree(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // Gone since the listing.
    }
    // The name, in parentheses, may hold spaces and parentheses: the fields follow the last `)`.
    const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    children.set(parent, [...(children.get(parent) ?? []), Number(entry)]);
  }
  const tree: number[] = [];
  const pending = [root];
  for (let pid = pending.pop(); pid !== undefined; pid = pending.pop()) {
    tree.push(pid);
    pending.push(...(children.get(pid) ?? []));
  }
  return tree;
}

/** The resident set of a process, in kB (`VmRSS`); 0 once it is gone. */
function rssKb(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    return Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1] ?? 0);
  } catch {
    return 0;
  }
}

/** The jobs' order in a round: rotated by one every other round, reversed in odd rounds. */
function orderOf(round: number): readonly JobName[] {
  const turn = Math.floor(round / 2) % JOB_NAMES.length;
  const rotated = [...JOB_NAMES.slice(turn), ...JOB_NAMES.slice(0, turn)];
  return round % 2 === 0 ? rotated : rotated.reverse();
}

function emptySamples(): Record<JobName, number[]> {
  return { raw: [], run: [], exec: [] };
}

function summarize(values: readonly number[]): JobSamples {
  return {
    median: round(median(values)),
    p25: round(quantile(values, 0.25)),
    p75: round(quantile(values, 0.75)),
    rounds: values.map(round),
  };
}

/** The median of each round's ratio; 0 when the job's value is 0 (nothing left resident). */
function pairedRatio(values: readonly number[], references: readonly number[]): number {
  return round(
    median(
      values.map((value, index) => (value === 0 ? 0 : value / (references[index] ?? Number.NaN))),
    ),
  );
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}

/** A path of the repository, relative to its root, for the report. */
function relative(path: string): string {
  const root = benchFile('../');
  return path.startsWith(root) ? path.slice(root.length) : path;
}
