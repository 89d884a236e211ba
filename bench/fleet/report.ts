/**
 * The fleet benchmark's report: each scenario's settings, the table of figures, the targets
 * with PASS or FAIL, and the command's runs, as Markdown lines that read the same on a terminal
 * and in docs/fleet.md (whose generated section is exactly these lines).
 */
import { formatNumber, markdownTable } from '../lib.ts';
import type { CommandRun } from './command.ts';
import type { FleetFigures } from './figures.ts';
import { ATTEMPT_TIMEOUT_MS } from './ideal.ts';
import { type Scenario, SPREAD_LIMIT, sdkSettings, spreadText } from './scenarios.ts';
import { SPREAD_MIN_MEAN, type Spread } from './spread.ts';
import type { Verdict } from './verdict.ts';

/** A target of the command part, with the runs it was measured on. */
export interface CommandVerdict extends Verdict {
  readonly part: string;
  readonly runs: readonly CommandRun[];
}

const secondsCell = (ms: number | null) => formatNumber(ms === null ? null : ms / 1000, 2);

/**
 * What each scenario runs with, before its figures: the jobs, the fault, the SDK's settings
 * (its environment over its defaults) and the cap, after a sentence on what every job does.
 */
export function settingsLines(scenarios: readonly Scenario[]): string[] {
  const header = [
    'Scenario',
    'Fault',
    'SDK environment',
    'SDK retries',
    'Jobs',
    'SDK wait s',
    'SDK timeout s',
    'Cap s',
  ];
  const rows = scenarios.map((scenario) => {
    const sdk = sdkSettings(scenario.env);
    const env = Object.entries(scenario.env).map(([name, value]) => `\`${name}=${value}\``);
    return [
      scenario.id,
      scenario.label,
      env.length === 0 ? '— (defaults)' : env.join(' '),
      sdk.waitMs > 0 ? 'until `wait` ends' : `\`maxRetries\` ${sdk.maxRetries}`,
      String(scenario.jobs),
      String(sdk.waitMs / 1000),
      String(sdk.timeoutMs / 1000),
      String(scenario.capMs / 1000),
    ];
  });
  return [
    'Every SDK job builds `new SecretsVault({ baseUrl, token, headers, logger, logLevel: ' +
      "'debug' })`, with no `fetch` option, so the SDK sends with its default sender, and calls " +
      '`client.secrets.load(vaultId)`, which runs with the settings below (no `totalTimeout`). ' +
      "Its attempts are counted from its debug log. The ideal model's jobs send with Node's " +
      `\`fetch\`, ${ATTEMPT_TIMEOUT_MS / 1000} s per attempt, until the cap. The Transport ` +
      'column of the figures is what the proxy saw send the requests.',
    '',
    ...markdownTable(header, rows, 4),
  ];
}

/**
 * The herd cell: the busiest 100 ms over the mean of the worst window, and when the window
 * starts; marked when no window was busy enough to judge.
 */
function herdCell(spread: Spread | null): string {
  if (spread === null) return '—';
  const at = `${formatNumber(spread.atMs / 1000, spread.atMs % 1000 === 0 ? 0 : 1)} s`;
  return `${spread.ratio.toFixed(2)} (${at}${spread.judged ? '' : ', n/j'})`;
}

/**
 * One line per scenario and client with herd checks: every window's busiest 100 ms against its
 * mean, for the table's Herd column (which shows only the worst).
 */
export function spreadLines(figures: readonly FleetFigures[]): string[] {
  const lines = figures
    .filter((figure) => figure.spreads.length > 0)
    .map((figure) => {
      const windows = figure.spreads.map((spread, index) => {
        const sent = figure.sentSpreads[index]?.ratio.toFixed(2) ?? '—';
        const stalls = figure.windowStalls[index];
        // Where every job sends one HTTP request (an outage: the rest are resets), no retries.
        const retry = figure.retrySpreads[index];
        const sentRetry = figure.sentRetrySpreads[index]?.ratio.toFixed(2) ?? '—';
        const retries =
          retry && retry.mean > 0
            ? `; retries only ${retry.ratio.toFixed(2)} ×, as sent ${sentRetry} ×`
            : '';
        return `${spreadText(spread)}${spread.judged ? '' : ', not judged'}; as the clients sent them ${sent} ×${retries}; event loop held up at most ${stalls?.serviceMs ?? '—'} ms in the service and ${stalls?.workerMs ?? '—'} ms in a worker during the window`;
      });
      const firsts = figure.firstRequests;
      const arrived =
        firsts === null
          ? ''
          : ` (first requests at the proxy from ${secondsCell(firsts.first)} to ${secondsCell(firsts.last)} s after the start instant)`;
      return `- ${figure.scenario}, ${figure.kind}${arrived}: ${windows.join('; ')}`;
    });
  return lines.length === 0
    ? []
    : [
        `Attempts reaching the proxy (requests and reset connections) per 100 ms after each recovery or Retry-After: the busiest 100 ms against the mean of the window's active part (the target: at most ${SPREAD_LIMIT} ×; a window whose mean is under ${SPREAD_MIN_MEAN} is not judged, n/j in the table):`,
        '',
        ...lines,
      ];
}

/** The table of every scenario's figures, SDK and ideal model side by side. */
export function figuresTable(figures: readonly FleetFigures[]): string[] {
  const header = [
    'Scenario',
    'Client',
    'Transport',
    'Jobs',
    'Up %',
    'Ready p50 s',
    'Ready p95 s',
    'Ready max s',
    'Fail max s',
    'Attempts/job',
    'Requests/job',
    'Peak req/s',
    'Peak conn/s',
    'Herd × (after s)',
    'Wall s',
  ];
  const rows = figures.map((figure) => [
    figure.scenario,
    figure.kind,
    figure.transport,
    String(figure.jobs),
    formatNumber(figure.upPercent, 1),
    secondsCell(figure.readyP50),
    secondsCell(figure.readyP95),
    secondsCell(figure.readyMax),
    secondsCell(figure.failureMax),
    formatNumber(figure.attemptsPerJob, 2),
    formatNumber(figure.requestsPerJob, 2),
    String(figure.peakRequestsPerSecond),
    String(figure.peakAttemptsPerSecond),
    herdCell(figure.worstSpread),
    secondsCell(figure.wallMs),
  ]);
  return markdownTable(header, rows, 3);
}

/**
 * One line per target: PASS, FAIL or n/a (not judged), the scenario, the target and what was
 * measured.
 */
export function verdictLines(verdicts: readonly (Verdict & { scenario: string })[]): string[] {
  return verdicts.map(
    (verdict) =>
      `- ${verdict.judged === false ? 'n/a' : verdict.pass ? 'PASS' : 'FAIL'} · ${verdict.scenario}: ${verdict.target} — ${verdict.measured}`,
  );
}

/** Why the failed jobs failed, per scenario and client, for the lines under the table. */
export function errorLines(figures: readonly FleetFigures[]): string[] {
  return figures
    .filter((figure) => Object.keys(figure.errors).length > 0)
    .map(
      (figure) =>
        `- ${figure.scenario}, ${figure.kind}: ${Object.entries(figure.errors)
          .map(([name, count]) => `${count} × ${name}`)
          .join(', ')}`,
    );
}
