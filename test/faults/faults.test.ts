import { type ChildProcess, spawn } from 'node:child_process';
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { eq, sql } from 'drizzle-orm';
import { type Contract, parseEther } from 'ethers';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  findFreePort,
  findOnPath,
  redisAnswers,
  redisServerArgs,
  stopChild,
} from '../../app/embedded/index.ts';
import { createDb, type DbHandle } from '../../db/client.ts';
import { createAccountRepository } from '../../db/repositories/accounts.ts';
import { tokens } from '../../db/schema.ts';
import { createRedis } from '../../infra/redis.ts';
import { hashPassword } from '../../src/accounts/credentials.ts';
import { QUEUE_NAMES } from '../../workers/jobs.ts';
import { createProAccount, RAISED_LIMITS } from '../support/accounts.ts';
import { startTestChain, type TestChain, waitMined } from '../support/chain.ts';
import {
  repeatedAlerts,
  repeatedAnalyses,
  repeatedEmails,
  repeatedHistory,
  repeatedTokenCreated,
} from '../support/duplicates.ts';
import { FAULT_KINDS, type FaultProxy, startFaultProxy } from '../support/protocol/fault-proxy.ts';
import { startTcpProxy, type TcpProxy } from '../support/protocol/tcp-proxy.ts';
import { createTestDatabase, eventually, type TestDatabase } from '../support/services.ts';
import { deployCorpusToken } from '../support/token-corpus.ts';

/**
 * `npm run test:faults`: a replay of a few hundred deployments while things break on purpose.
 * Worker processes are SIGKILLed, Redis restarts, Postgres is unreachable for 20 s, and a proxy in
 * front of the RPC answers 20% of requests with 429, 500, a hang, truncated JSON or a wrong
 * block. Afterwards every token must be present and fully processed, no job may be left failed,
 * and nothing may be repeated where nothing stops a repeat (test/support/duplicates.ts:
 * token.created per token on the stream, analyses per pass, history per bucket, alerts per
 * window, emails per alert). The API is polled throughout with a real key whose limits are
 * raised: it must answer 200 with the right tokens, or 503 "not ready" - never 500, 401 or 429.
 */

const DEPLOYMENTS = 200;
/** Honeypots with a pool: each raises an alert for the watcher, and so an email, during the faults. */
const HONEYPOTS = 4;
const EMAIL_SETTLE_MS = 120_000;
const FINALITY = 5;
const FAULT_RATE = 0.2;
const POSTGRES_OUTAGE_MS = 20_000;
const RPC_TIMEOUT_MS = 1_500;
const API_POLL_MS = 250;
const MAX_REPLAY_RUNS = 15;
const REPLAY_RESTART_DELAY_MS = 2_000;
const WATCHER_EMAIL = 'watcher@faults.test';

let chain: TestChain;
let database: TestDatabase;
let pgProxy: TcpProxy;
let rpcProxy: FaultProxy;
let redisProcess: ChildProcess | undefined;
let redisPort: number;
let handle: DbHandle;
const dir = mkdtempSync(join(tmpdir(), 'token-monitor-faults-'));
const children = new Set<ChildProcess>();
const outputs = new Map<ChildProcess, () => string>();
const expected = new Set<string>();
let lastBlock = 0;
const prefix = `tmfaults-${process.pid}`;
/** The API poll's credential: a PRO key with raised limits, as an operator sets for a load test. */
let apiKey = '';
let smtp: SMTPServer;
let smtpPort = 0;
const emails: { to: string; subject: string }[] = [];

function startRedis(): ChildProcess {
  const binary = findOnPath('redis-server');
  if (!binary)
    throw new Error('the fault suite needs redis-server on PATH (apt-get install redis-server)');
  // Its own server, so that restarting it disturbs nobody else; AOF keeps the queues across restarts.
  return spawn(binary, redisServerArgs(redisPort, dir), { stdio: 'ignore' });
}

async function waitForRedis() {
  await eventually(
    async () => ((await redisAnswers(`redis://127.0.0.1:${redisPort}`)) ? true : undefined),
    10_000,
    'redis-server',
  );
}

function env(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const url = new URL(database.url);
  url.port = String(pgProxy.port);
  url.hostname = '127.0.0.1';
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    DATABASE_URL: url.toString(),
    REDIS_URL: `redis://127.0.0.1:${redisPort}`,
    REDIS_PREFIX: prefix,
    CHAINS_FILE: join(dir, 'chains.json'),
    DATA_DIR: join(dir, 'data'),
    LOG_LEVEL: process.env.FAULTS_LOG_LEVEL ?? 'fatal',
    HOST: '127.0.0.1',
    SMTP_URL: `smtp://127.0.0.1:${smtpPort}`,
    ...extra,
  };
}

function launch(args: string[], extra: Record<string, string> = {}): ChildProcess {
  const child = spawn(process.execPath, ['bin/token-monitor.mjs', ...args], {
    env: env(extra),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  // Keep the tail of what each process said, for the failure message.
  let tail = '';
  const keep = (chunk: Buffer) => {
    tail = (tail + chunk.toString()).slice(-4_000);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  if (process.env.FAULTS_LOG_DIR) {
    const file = join(process.env.FAULTS_LOG_DIR, `${args[0]}-${children.size}-${Date.now()}.log`);
    const append = (c: Buffer) => appendFileSync(file, c);
    child.stdout!.on('data', append);
    child.stderr!.on('data', append);
  }
  outputs.set(child, () => tail);
  child.once('exit', () => children.delete(child));
  return child;
}

const exitOf = (child: ChildProcess) =>
  new Promise<number | null>((resolve) => {
    if (child.exitCode !== null) resolve(child.exitCode);
    else child.once('exit', (code) => resolve(code));
  });

beforeAll(async () => {
  [chain, database] = await Promise.all([startTestChain(), createTestDatabase()]);
  handle = createDb(database.url, { max: 2 });
  pgProxy = await startTcpProxy('127.0.0.1', Number(new URL(database.url).port || 5432));
  rpcProxy = await startFaultProxy(chain.anvil.rpcUrl, { rate: 0, seed: 7 });
  smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      let text = '';
      stream.on('data', (c: Buffer) => (text += c.toString()));
      stream.on('end', () => {
        // Long headers are folded over several lines: unfold before reading the subject.
        const subject = /^Subject: (.*)$/im.exec(text.replace(/\r?\n[ \t]+/g, ' '))?.[1] ?? '';
        for (const to of session.envelope.rcptTo) emails.push({ to: to.address, subject });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', () => resolve()));
  smtpPort = (smtp.server.address() as AddressInfo).port;
  redisPort = await findFreePort();
  redisProcess = startRedis();
  await waitForRedis();

  // A few hundred deployments: half at top level, half created by a factory (found through traces).
  expected.add(chain.uniswap.weth.toLowerCase());
  const factory = await chain.deploy('TokenFactory');
  const pending: Promise<unknown>[] = [];
  for (let i = 0; i < DEPLOYMENTS; i++) {
    if (i % 2 === 0) {
      const token = await chain.deploy('SimpleToken', [`Fault ${i}`, `F${i}`, parseEther('1000')]);
      expected.add(token.address);
    } else {
      const tx = await (factory.contract as Contract).getFunction('createToken')(
        `Fault ${i}`,
        `F${i}`,
        parseEther('1000'),
      );
      pending.push(
        waitMined(chain.provider, tx).then((receipt) => {
          const log = receipt.logs
            .map((l) => factory.contract.interface.parseLog(l))
            .find((l) => l?.name === 'TokenCreated');
          expected.add(String(log!.args.getValue('token')).toLowerCase());
        }),
      );
    }
  }
  await Promise.all(pending);
  for (let i = 0; i < HONEYPOTS; i++)
    expected.add((await deployCorpusToken(chain, 'honeypot', i)).address);
  lastBlock = Number(await chain.provider.send('eth_blockNumber', []));

  // A PRO account polls the API; a watcher with email alerts on watches every token.
  const accounts = createAccountRepository(handle.db);
  ({ apiKey } = await createProAccount(accounts, {
    email: 'poller@faults.test',
    limits: RAISED_LIMITS,
  }));
  const watcher = (await accounts.createUser({
    email: WATCHER_EMAIL,
    passwordHash: await hashPassword('fault watcher'),
    plan: 'PRO',
  }))!;
  await accounts.setAlertPreferences(watcher.id, { emailAlerts: true }, new Date());
  for (const address of expected) await accounts.addToWatchlist(watcher.id, 31337, address);
  for (let i = 0; i < FINALITY; i++) await chain.provider.send('evm_mine', []);

  writeFileSync(
    join(dir, 'chains.json'),
    JSON.stringify({
      chains: [
        {
          chain_id: 31337,
          name: 'faulty',
          rpc_urls: [rpcProxy.url],
          confirmations: 0,
          start_block: lastBlock + FINALITY + 1,
          finality_depth: FINALITY,
          rpc_timeout_ms: RPC_TIMEOUT_MS,
          wrapped_native: chain.uniswap.weth,
          stablecoins: [],
          dexes: [
            {
              name: 'uniswap-v2',
              kind: 'v2',
              factory: chain.uniswap.factory,
              router: chain.uniswap.router,
            },
          ],
        },
      ],
    }),
  );
}, 300_000);

afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  if (redisProcess) await stopChild(redisProcess);
  await new Promise<void>((resolve) => (smtp ? smtp.close(() => resolve()) : resolve()));
  await handle?.close();
  await Promise.all([rpcProxy?.close(), pgProxy?.close()]);
  await Promise.all([chain?.stop(), database?.drop()]);
  rmSync(dir, { recursive: true, force: true });
});

describe('fault tolerance', () => {
  it('loses nothing and duplicates nothing while workers die, Redis restarts, Postgres vanishes and the RPC misbehaves', async () => {
    const apiPort = await findFreePort();
    const api = launch(['start', '--role', 'api'], { PORT: String(apiPort) });
    await eventually(
      async () => ((await fetch(`http://127.0.0.1:${apiPort}/health`)).ok ? true : undefined),
      60_000,
      'the API',
    );
    const workers = [launch(['start', '--role', 'worker']), launch(['start', '--role', 'worker'])];
    rpcProxy.setRate(FAULT_RATE);

    // The API is polled throughout with a real key: data (only tokens of this run) or 503, never 500.
    const statuses = new Map<number, number>();
    let unanswered = 0;
    const unansweredErrors: string[] = [];
    const wrongData: string[] = [];
    let answeredWithData = 0;
    let polling = true;
    const poller = (async () => {
      while (polling) {
        for (const path of ['/api/tokens?limit=5&chain_id=31337', '/ready']) {
          try {
            const res = await fetch(`http://127.0.0.1:${apiPort}${path}`, {
              headers: { authorization: `Bearer ${apiKey}` },
              signal: AbortSignal.timeout(10_000),
            });
            statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
            const body = (await res.json()) as {
              items?: { contract_address: string; chain_id: number }[];
            };
            if (res.status === 200 && path.startsWith('/api/tokens')) {
              answeredWithData++;
              const strangers = (body.items ?? []).filter(
                (i) => i.chain_id !== 31337 || !expected.has(i.contract_address),
              );
              if (!Array.isArray(body.items) || strangers.length > 0)
                wrongData.push(JSON.stringify(body).slice(0, 300));
            }
          } catch (error) {
            unanswered++;
            unansweredErrors.push(`${path}: ${(error as Error).message}`);
          }
        }
        await new Promise((r) => setTimeout(r, API_POLL_MS));
      }
    })();

    const faults: string[] = [];
    const timeline = (async () => {
      await new Promise((r) => setTimeout(r, 3_000));
      workers[0]!.kill('SIGKILL');
      workers.push(launch(['start', '--role', 'worker']));
      faults.push('worker SIGKILL');
      await new Promise((r) => setTimeout(r, 3_000));
      await stopChild(redisProcess!);
      redisProcess = startRedis();
      await waitForRedis();
      faults.push('Redis restart');
      await new Promise((r) => setTimeout(r, 2_000));
      await pgProxy.outage(POSTGRES_OUTAGE_MS);
      faults.push(`Postgres unreachable ${POSTGRES_OUTAGE_MS / 1000} s`);
      workers[1]!.kill('SIGKILL');
      workers.push(launch(['start', '--role', 'worker']));
      faults.push('second worker SIGKILL');
    })();

    // The replay itself may be cut off by the outages; it resumes where it stopped.
    let replayRuns = 0;
    let replayCode: number | null = null;
    while (replayRuns < MAX_REPLAY_RUNS && replayCode !== 0) {
      replayRuns++;
      const replay = launch(
        ['replay', '--chain-id', '31337', '--from', '0', '--to', String(lastBlock)],
        { LOG_LEVEL: 'debug' },
      );
      replayCode = await exitOf(replay);
      if (replayCode !== 0) {
        console.log(
          `replay run ${replayRuns} exited with ${replayCode}:\n${outputs.get(replay)?.().slice(-1_500)}`,
        );
        await new Promise((r) => setTimeout(r, REPLAY_RESTART_DELAY_MS));
      }
    }
    await timeline;
    expect(replayCode).toBe(0);

    await eventually(
      async () => {
        const [row] = await handle.db
          .select({ n: sql<number>`count(*)::int` })
          .from(tokens)
          .where(eq(tokens.stage, 'risk'));
        return (row?.n ?? 0) >= expected.size ? true : undefined;
      },
      300_000,
      'every token through the whole pipeline (risk stage)',
    );
    rpcProxy.setRate(0);
    polling = false;
    await poller;

    const rows = await handle.db
      .select({ address: tokens.address, stage: tokens.stage })
      .from(tokens)
      .where(eq(tokens.chainId, 31337));
    const stored = rows.map((r) => r.address);
    const lost = [...expected].filter((a) => !stored.includes(a));
    const unexpected = stored.filter((a) => !expected.has(a));

    // Emails still being retried settle first (each honeypot's alert reaches the watcher's inbox);
    // then count what could have been repeated.
    await eventually(
      async () => (emails.length >= HONEYPOTS ? true : undefined),
      EMAIL_SETTLE_MS,
      'an email per honeypot alert',
    ).catch(() => undefined);
    await new Promise((r) => setTimeout(r, 2_000));
    const streamRedis = createRedis(`redis://127.0.0.1:${redisPort}`, 'commands');
    const repeats = {
      token_created: await repeatedTokenCreated(streamRedis, `${prefix}:events`),
      analyses: await repeatedAnalyses(handle.sql),
      history: await repeatedHistory(handle.sql),
      alerts: await repeatedAlerts(handle.sql),
      emails: repeatedEmails(emails),
    };
    const announced = (await streamRedis.xrange(`${prefix}:events`, '-', '+')).filter(
      ([, f]) => f[1] === 'token.created',
    ).length;
    streamRedis.disconnect();
    const [counts] = await handle.sql<
      { analysesRows: number; historyRows: number; alertRows: number }[]
    >`
      select (select count(*)::int from analyses) as "analysesRows", (select count(*)::int from token_history) as "historyRows",
             (select count(*)::int from alert_deliveries) as "alertRows"`;
    const { analysesRows, historyRows, alertRows } = counts!;
    // The poll reflects the end state too: the API lists every token of the run.
    const final = (await (
      await fetch(`http://127.0.0.1:${apiPort}/api/tokens?limit=1&chain_id=31337`, {
        headers: { authorization: `Bearer ${apiKey}` },
      })
    ).json()) as { total: number };

    const queues = QUEUE_NAMES.map(
      (name) => new Queue(name, { connection: { url: `redis://127.0.0.1:${redisPort}` }, prefix }),
    );
    const failedJobs = (await Promise.all(queues.map((q) => q.getJobCounts('failed')))).reduce(
      (sum, c) => sum + (c.failed ?? 0),
      0,
    );
    await Promise.all(queues.map((q) => q.close()));
    const serverErrors = [...statuses]
      .filter(([status]) => status >= 500 && status !== 503)
      .reduce((sum, [, n]) => sum + n, 0);

    const report = {
      deployments: expected.size,
      faults,
      rpc_faults_injected: rpcProxy.injected,
      replay_runs: replayRuns,
      tokens_lost: lost.length,
      unexpected: unexpected.length,
      failed_jobs: failedJobs,
      checked: {
        token_created_events: announced,
        analyses_rows: analysesRows,
        history_rows: historyRows,
        alert_rows: alertRows,
        emails: emails.length,
      },
      repeated: Object.fromEntries(Object.entries(repeats).map(([k, v]) => [k, v.length])),
      repeated_examples: Object.values(repeats).flat().slice(0, 5),
      api_statuses: Object.fromEntries(statuses),
      api_answers_with_data: answeredWithData,
      api_wrong_data: wrongData.length,
      api_final_total: final.total,
      api_unanswered: unanswered,
      api_unanswered_errors: unansweredErrors.slice(0, 5),
    };
    console.log(`fault suite report: ${JSON.stringify(report)}`);
    writeFileSync(
      new URL('./last-report.json', import.meta.url),
      `${JSON.stringify(report, null, 2)}\n`,
    );

    expect(lost).toEqual([]);
    expect(repeats).toEqual({
      token_created: [],
      analyses: [],
      history: [],
      alerts: [],
      emails: [],
    });
    // Every token was announced (once, by the check above); every honeypot alerted and emailed.
    expect(announced).toBe(expected.size);
    expect(alertRows).toBeGreaterThanOrEqual(HONEYPOTS);
    expect(emails.length).toBeGreaterThanOrEqual(HONEYPOTS);
    expect(unexpected).toEqual([]);
    expect(rows.every((r) => r.stage === 'risk')).toBe(true);
    expect(failedJobs).toBe(0);
    expect(serverErrors).toBe(0);
    // With a valid key and raised limits, the only refusal allowed is 503 "not ready".
    expect([...statuses.keys()].filter((status) => status !== 200 && status !== 503)).toEqual([]);
    expect(answeredWithData).toBeGreaterThan(0);
    expect(wrongData).toEqual([]);
    expect(final.total).toBe(expected.size);
    expect(unanswered).toBe(0);
    for (const kind of FAULT_KINDS) expect(rpcProxy.injected[kind], kind).toBeGreaterThan(0);
    api.kill('SIGTERM');
    for (const w of workers) w.kill('SIGTERM');
  }, 600_000);
});
