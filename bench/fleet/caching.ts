/**
 * What caching across process starts saves the service, measured on real processes (the built
 * `dist/cli.js`), as command.ts measures the command:
 *
 * - A crash loop: a job whose command exits at once, `secrets-vault run --vault <id> --fallback
 *   <file> [--cache-ttl D] -- node -e "process.exit(1)"`, restarted one start after the other
 *   by the harness as a supervisor would, once without `--cache-ttl` and once with it. The proxy
 *   counts the values requests of each start (each names itself in its base URL,
 *   `<proxy>/fleet-job/<id>`, a path that leaves the snapshot's origin as it is).
 * - Jobs behind one agent: `secrets-vault agent --listen 127.0.0.1:0` pointed at the proxy, and
 *   many `run` processes started at one instant with the agent's URL (its first stdout line) as
 *   their `SECRETS_VAULT_BASE_URL`. The proxy counts what the agent asked the service; then the
 *   agent is stopped with SIGTERM.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { markdownTable } from '../lib.ts';
import { type CommandRun, type CommandTarget, exitingCommand, runCommand } from './command.ts';
import type { Service } from './processes.ts';
import { epochNow } from './protocol.ts';
import type { CachingPlan } from './scenarios.ts';
import type { Verdict } from './verdict.ts';

type Named = Verdict & { readonly scenario: string };

/** The crashing job's exit code: `run` exits with it, which shows the command did start. */
const CRASH_CODE = 1;
/** The agent's `--ttl` when none is given, as docs/agent.md documents it. */
const AGENT_TTL_MS = 60_000;
/** How long the agent may take to print its URL, and to exit after SIGTERM. */
const AGENT_START_MS = 15_000;
const AGENT_STOP_MS = 15_000;

const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const requests = (count: number) => `${count} values request${count === 1 ? '' : 's'}`;
const durationFlag = (ms: number) => `${ms / 1000}s`;

function countCodes(runs: readonly CommandRun[]): Record<string, number> {
  const codes: Record<string, number> = {};
  for (const run of runs) {
    const key = run.code === null ? 'killed' : String(run.code);
    codes[key] = (codes[key] ?? 0) + 1;
  }
  return codes;
}

const describeCodes = (codes: Readonly<Record<string, number>>) =>
  Object.entries(codes)
    .map(([code, count]) => `${count} × ${code}`)
    .join(', ');

/** One variant of the crash loop. */
export interface CrashLoopResults {
  /** `--cache-ttl` in ms, or null for the variant without it. */
  readonly cacheTtlMs: number | null;
  readonly starts: number;
  /** Ms from the first start's spawn to the last one's exit. */
  readonly loopMs: number;
  /** Values requests the service saw in the whole loop. */
  readonly requests: number;
  /** The starts (1-based) that sent at least one request, in order. */
  readonly startsWithRequests: readonly number[];
  /** How many starts said they started from the snapshot without a request. */
  readonly fromSnapshot: number;
  readonly exitCodes: Readonly<Record<string, number>>;
  /** The last stderr line of the last start, for the report. */
  readonly lastLine: string;
}

/** Both variants of the crash loop. */
export interface CrashLoopPair {
  readonly uncached: CrashLoopResults;
  readonly cached: CrashLoopResults;
}

async function crashLoop(
  service: Service,
  target: CommandTarget,
  plan: CachingPlan,
  cacheTtlMs: number | null,
  log: (line: string) => void,
): Promise<CrashLoopResults> {
  const variant = cacheTtlMs === null ? 'uncached' : 'cached';
  const dir = mkdtempSync(path.join(os.tmpdir(), 'fleet-crash-'));
  const snapshot = path.join(dir, 'secrets.snapshot');
  const flags = ['--fallback', snapshot];
  if (cacheTtlMs !== null) flags.push('--cache-ttl', durationFlag(cacheTtlMs));
  // A fresh key per variant: a snapshot is only ever read back with the key that wrote it.
  const env = { ...target.env, SECRETS_VAULT_FALLBACK_KEY: randomBytes(32).toString('base64') };
  try {
    log(`crash loop, ${variant}: ${plan.crashStarts} starts of \`run ${flags.join(' ')}\``);
    const startAt = epochNow();
    await service.configure({ kind: 'none' }, startAt);
    const runs: CommandRun[] = [];
    const ids: string[] = [];
    for (let start = 1; start <= plan.crashStarts; start += 1) {
      const id = `crash-${variant}-${String(start).padStart(2, '0')}`;
      ids.push(id);
      const baseUrl = `${target.baseUrl}/fleet-job/${id}`;
      runs.push(
        await runCommand(
          { ...target, baseUrl, env },
          { flags, command: exitingCommand(CRASH_CODE), capMs: plan.capMs },
        ),
      );
    }
    const loopMs = epochNow() - startAt;
    const counts = await service.counts();
    return {
      cacheTtlMs,
      starts: runs.length,
      loopMs,
      requests: counts.requests,
      startsWithRequests: ids.flatMap((id, index) =>
        (counts.perJob[id] ?? 0) > 0 ? [index + 1] : [],
      ),
      fromSnapshot: runs.filter((run) => run.stderr.includes('starting from the snapshot')).length,
      exitCodes: countCodes(runs),
      lastLine: runs.at(-1)?.stderr ?? '',
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Runs the crash loop without `--cache-ttl`, then with it. */
export async function measureCrashLoop(
  service: Service,
  target: CommandTarget,
  plan: CachingPlan,
  log: (line: string) => void,
): Promise<CrashLoopPair> {
  const uncached = await crashLoop(service, target, plan, null, log);
  const cached = await crashLoop(service, target, plan, plan.cacheTtlMs, log);
  return { uncached, cached };
}

/** What the jobs behind one agent measured. */
export interface AgentResults {
  readonly jobs: number;
  /** The URL the agent printed on its first stdout line. */
  readonly agentUrl: string;
  /** Values requests the service saw from the agent while the jobs ran. */
  readonly upstreamRequests: number;
  readonly succeeded: number;
  readonly exitCodes: Readonly<Record<string, number>>;
  /** Ms from the start instant to the last run's exit. */
  readonly allDoneMs: number;
  /** The agent's exit code after SIGTERM (null: still running at the limit, or a signal). */
  readonly agentExitCode: number | null;
  /** Ms from SIGTERM to the agent's exit. */
  readonly agentStopMs: number;
  /** The last stderr line of a run that failed, for the report. */
  readonly failureLine: string;
}

/** Resolves to the first line `child` writes on stdout; rejects if it exits or is slow first. */
function firstLine(child: ChildProcess, ms: number): Promise<string> {
  return new Promise((resolve, reject) => {
    if (!child.stdout) {
      reject(new Error('agent: no stdout'));
      return;
    }
    const lines = createInterface({ input: child.stdout });
    const timer = setTimeout(() => reject(new Error(`agent: no URL within ${ms} ms`)), ms);
    lines.once('line', (line) => {
      clearTimeout(timer);
      resolve(line);
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`agent: exited (code ${code}) before printing its URL`));
    });
  });
}

/** Runs the jobs behind one agent. */
export async function measureAgent(
  service: Service,
  target: CommandTarget,
  plan: CachingPlan,
  log: (line: string) => void,
): Promise<AgentResults> {
  await service.configure({ kind: 'none' }, epochNow());
  const agent = spawn(process.execPath, [target.cli, 'agent', '--listen', '127.0.0.1:0'], {
    env: { ...target.env, SECRETS_VAULT_BASE_URL: target.baseUrl },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<number | null>((resolve) => {
    agent.once('exit', (code) => resolve(code));
  });
  try {
    const line = await firstLine(agent, AGENT_START_MS);
    const agentUrl = line.replace(/^SECRETS_VAULT_BASE_URL=/, '');
    if (agentUrl === line) throw new Error(`agent: unexpected first line “${line}”`);
    log(`agent at ${agentUrl}: ${plan.agentJobs} \`run\` processes at one instant behind it`);
    const startAt = epochNow() + 500;
    const runs = await Promise.all(
      Array.from({ length: plan.agentJobs }, () =>
        runCommand({ ...target, baseUrl: agentUrl }, { capMs: plan.capMs, startAt }),
      ),
    );
    const counts = await service.counts();
    log('agent: SIGTERM');
    const stoppedAt = epochNow();
    agent.kill('SIGTERM');
    const agentExitCode = await Promise.race([exited, sleep(AGENT_STOP_MS).then(() => null)]);
    const failed = runs.find((run) => run.code !== 0);
    return {
      jobs: runs.length,
      agentUrl,
      upstreamRequests: counts.requests,
      succeeded: runs.filter((run) => run.code === 0).length,
      exitCodes: countCodes(runs),
      allDoneMs: Math.max(...runs.map((run) => run.ms)),
      agentExitCode,
      agentStopMs: epochNow() - stoppedAt,
      failureLine: failed?.stderr ?? '',
    };
  } finally {
    if (agent.exitCode === null && agent.signalCode === null) agent.kill('SIGKILL');
  }
}

/** The targets of both scenarios. */
export function cachingVerdicts(
  crash: CrashLoopPair,
  agent: AgentResults,
  plan: CachingPlan,
): Named[] {
  const { uncached, cached } = crash;
  const ttl = durationFlag(plan.cacheTtlMs);
  // One load per TTL: the first start loads, and a start after the snapshot is a TTL old loads
  // again, so a loop shorter than the TTL costs exactly one request.
  const perTtl = Math.max(1, Math.ceil(cached.loopMs / plan.cacheTtlMs));
  const started = (loop: CrashLoopResults) =>
    `${loop.exitCodes[String(CRASH_CODE)] ?? 0} of ${loop.starts} starts ran the command (exit codes: ${describeCodes(loop.exitCodes)})`;
  return [
    {
      scenario: 'crash loop, no --cache-ttl',
      pass:
        uncached.requests === uncached.starts &&
        uncached.exitCodes[String(CRASH_CODE)] === uncached.starts,
      target: 'one values request per start (what the TTL saves)',
      measured: `${requests(uncached.requests)} for ${uncached.starts} starts in ${s(uncached.loopMs)}; ${started(uncached)}`,
    },
    {
      scenario: `crash loop, --cache-ttl ${ttl}`,
      pass: cached.requests === perTtl && cached.exitCodes[String(CRASH_CODE)] === cached.starts,
      target: `values requests = ⌈loop duration / TTL⌉ (${perTtl} for a ${s(cached.loopMs)} loop), every start runs the command`,
      measured: `${requests(cached.requests)} for ${cached.starts} starts (at start ${cached.startsWithRequests.join(', ') || 'none'}), ${cached.fromSnapshot} started from the snapshot; ${started(cached)}`,
    },
    {
      scenario: 'agent',
      pass: agent.upstreamRequests === 1 && agent.succeeded === agent.jobs,
      target: `one values request to the service per vault per TTL (1 here), every run starts its command`,
      measured: `${requests(agent.upstreamRequests)} upstream for ${agent.jobs} runs; ${agent.succeeded} of ${agent.jobs} started their command (exit codes: ${describeCodes(agent.exitCodes)}), all done ${s(agent.allDoneMs)} after the instant${agent.failureLine ? ` (“${agent.failureLine.slice(0, 200)}”)` : ''}`,
    },
    {
      scenario: 'agent, stop',
      pass: agent.agentExitCode === 0,
      target: 'SIGTERM: the agent exits 0',
      measured:
        agent.agentExitCode === null
          ? `still running ${s(agent.agentStopMs)} after SIGTERM (or killed by a signal)`
          : `exit ${agent.agentExitCode} after ${s(agent.agentStopMs)}`,
    },
  ];
}

/** The settings of both scenarios, as a table. */
export function cachingSettingsLines(plan: CachingPlan): string[] {
  const crash = (flags: string) =>
    `\`secrets-vault run --vault <id> --fallback <file>${flags} -- node -e "process.exit(${CRASH_CODE})"\``;
  return markdownTable(
    ['Scenario', 'What runs', 'Runs', 'Times'],
    [
      [
        'crash loop',
        crash(''),
        String(plan.crashStarts),
        'one start after the other, as a supervisor restarts it',
      ],
      [
        'crash loop, cached',
        crash(` --cache-ttl ${durationFlag(plan.cacheTtlMs)}`),
        String(plan.crashStarts),
        'one start after the other, a fresh snapshot file',
      ],
      [
        'agent',
        `\`secrets-vault agent --listen 127.0.0.1:0\` (\`--ttl\` ${AGENT_TTL_MS / 1000} s, its default); behind it, ` +
          '`secrets-vault run --vault <id> -- node -e "process.exit(0)"`',
        String(plan.agentJobs),
        'every run at one instant; then SIGTERM to the agent',
      ],
    ],
    2,
  );
}

/** The figures of both scenarios, as lines. */
export function cachingFigureLines(crash: CrashLoopPair, agent: AgentResults): string[] {
  const loop = (results: CrashLoopResults) =>
    `${requests(results.requests)} for ${results.starts} starts in ${s(results.loopMs)} (${(results.requests / results.starts).toFixed(2)} per start)`;
  return [
    `- Crash loop: without \`--cache-ttl\`, ${loop(crash.uncached)}; with \`--cache-ttl ${durationFlag(crash.cached.cacheTtlMs ?? 0)}\`, ${loop(crash.cached)}, ${crash.cached.fromSnapshot} starts from the snapshot.`,
    `- Agent: ${agent.jobs} runs at one instant, ${agent.succeeded} started their command, all done ${s(agent.allDoneMs)} after the instant; the service saw ${requests(agent.upstreamRequests)} (agent \`--ttl\` ${AGENT_TTL_MS / 1000} s); after SIGTERM the agent ${agent.agentExitCode === null ? 'did not exit' : `exited ${agent.agentExitCode}`} within ${s(agent.agentStopMs)}.`,
  ];
}
