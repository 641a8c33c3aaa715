import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { findFreePort } from '../app/embedded/index.ts';
import { startService } from '../app/service.ts';
import { createDb, type DbHandle } from '../db/client.ts';
import { type AccountRepository, createAccountRepository } from '../db/repositories/accounts.ts';
import { type AlertRepository, createAlertRepository } from '../db/repositories/alerts.ts';
import { createEventPublisher, type EventPublisher } from '../infra/events.ts';
import { silentLogger } from '../infra/logger.ts';
import { createRedis } from '../infra/redis.ts';
import { tokenUpdatedData } from '../src/events/types.ts';
import { alertData, storedToken } from '../test/support/events.ts';
import {
  createTestDatabase,
  createTestRedis,
  eventually,
  type TestDatabase,
  type TestRedis,
} from '../test/support/services.ts';
import {
  ALERTS_GROUP,
  type AlertsConsumer,
  createMailer,
  type Mailer,
  startAlertsConsumer,
} from './alerts.ts';

/**
 * The alerts consumer against real Postgres, real Redis and a local SMTP server (smtp-server):
 * who gets an email, de-duplication across re-deliveries and a second consumer, retry of a failed
 * send, and alerts derived from token.updated payloads.
 */

const CLAIM_IDLE_MS = 300;
const BLOCK_MS = 100;
const QUIET_MS = 800;
const MAX_ATTEMPTS = 4;

interface Received {
  to: string[];
  raw: string;
}

let database: TestDatabase;
let testRedis: TestRedis;
let handle: DbHandle;
let accounts: AccountRepository;
let alerts: AlertRepository;
let smtp: SMTPServer;
let smtpUrl: string;
let mailer: Mailer;
const received: Received[] = [];
/** The SMTP server refuses this many messages before accepting again. */
let rejectNext = 0;
let streamKey: string;
let general: ReturnType<typeof createRedis>;
let events: EventPublisher;
const connections: ReturnType<typeof createRedis>[] = [];
const consumers: AlertsConsumer[] = [];

let serial = 0;
const addr = (n: number) => `0x${n.toString(16).padStart(40, '0')}`;
const newToken = () => addr(0xabc000 + ++serial);

async function makeUser(plan: 'FREE' | 'BASIC' | 'PRO', emailAlerts: boolean) {
  const user = (await accounts.createUser({
    email: `alerts${++serial}@example.com`,
    passwordHash: 'x',
    plan,
  }))!;
  await accounts.setAlertPreferences(user.id, { emailAlerts }, new Date());
  return user;
}

async function startConsumer(name: string, maxAttempts?: number): Promise<AlertsConsumer> {
  const redis = createRedis(testRedis.url, 'worker');
  connections.push(redis);
  const consumer = await startAlertsConsumer({
    redis,
    streamKey,
    prefix: testRedis.prefix,
    alerts,
    events,
    logger: silentLogger,
    mailer,
    consumerName: name,
    blockMs: BLOCK_MS,
    claimIdleMs: CLAIM_IDLE_MS,
    maxAttempts,
  });
  consumers.push(consumer);
  return consumer;
}

const mailsTo = (email: string) => received.filter((m) => m.to.includes(email));
const pendingCount = async () => ((await general.xpending(streamKey, ALERTS_GROUP)) as [number])[0];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Everything published so far has been handled and acknowledged. */
async function settled(): Promise<void> {
  await eventually(
    async () => {
      const [group] = (await general.xinfo('GROUPS', streamKey)) as unknown[][];
      const info = new Map<string, unknown>();
      for (let i = 0; i + 1 < group!.length; i += 2) info.set(String(group![i]), group![i + 1]);
      const [last] = (await general.xrevrange(streamKey, '+', '-', 'COUNT', 1)) as [
        string,
        string[],
      ][];
      return info.get('last-delivered-id') === last?.[0] && (await pendingCount()) === 0
        ? true
        : undefined;
    },
    10_000,
    'the consumer group to catch up',
  );
  await sleep(100);
}

beforeAll(async () => {
  [database, testRedis] = await Promise.all([createTestDatabase(), createTestRedis()]);
  handle = createDb(database.url, { max: 4 });
  accounts = createAccountRepository(handle.db);
  alerts = createAlertRepository(handle.db);
  streamKey = `${testRedis.prefix}:events`;
  general = createRedis(testRedis.url, 'commands');
  events = createEventPublisher(general, streamKey);

  smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        if (rejectNext > 0) {
          rejectNext -= 1;
          const error = Object.assign(new Error('try again later'), { responseCode: 451 });
          callback(error);
          return;
        }
        received.push({
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString('utf8'),
        });
        callback();
      });
    },
  });
  const port = await findFreePort();
  await new Promise<void>((resolve) => smtp.listen(port, '127.0.0.1', () => resolve()));
  smtpUrl = `smtp://127.0.0.1:${port}`;
  mailer = createMailer(smtpUrl);
  await startConsumer('consumer-a', MAX_ATTEMPTS);
});

afterAll(async () => {
  await Promise.all(consumers.map((c) => c.stop()));
  for (const c of [...connections, general]) c?.disconnect();
  mailer?.close();
  await new Promise<void>((resolve) => (smtp ? smtp.close(() => resolve()) : resolve()));
  await handle?.close();
  await database?.drop();
  await testRedis?.cleanup();
});

beforeEach(() => {
  rejectNext = 0;
});

describe('alerts consumer', () => {
  it('emails a honeypot alert to a watcher with email alerts on, and nobody else', async () => {
    const token = newToken();
    const [alice, bob, carol, dave] = [
      await makeUser('BASIC', true),
      await makeUser('PRO', false),
      await makeUser('PRO', true),
      await makeUser('FREE', true),
    ];
    await accounts.addToWatchlist(alice.id, 1, token);
    await accounts.addToWatchlist(bob.id, 1, token); // email alerts off
    await accounts.addToWatchlist(dave.id, 1, token); // downgraded: watchlist kept, no alerts
    // carol watches nothing

    await events.publish({
      type: 'alert',
      data: alertData(token, 'honeypot', 'honeypot detected', {
        details: { reason: 'sell reverts', risk_score: 100 },
      }),
    });
    const [mail] = await eventually(
      async () => (mailsTo(alice.email).length > 0 ? mailsTo(alice.email) : undefined),
      10_000,
      'the honeypot email',
    );
    expect(mail!.raw).toContain(token);
    expect(mail!.raw).toMatch(/Subject: \[token-monitor\] Honeypot detected/);
    expect(mail!.raw).toContain('alerts@token-monitor.local');
    await settled();
    expect(mailsTo(bob.email)).toHaveLength(0);
    expect(mailsTo(carol.email)).toHaveLength(0);
    expect(mailsTo(dave.email)).toHaveLength(0);
    // Bob still has the alert on record (WebSocket clients see the event), just no email.
    expect(
      (await alerts.deliveries(bob.id)).map((d) => [d.kind, d.emailWanted, d.emailedAt]),
    ).toEqual([['honeypot', false, null]]);
    expect(await alerts.deliveries(carol.id)).toEqual([]);
    expect(await alerts.deliveries(dave.id)).toEqual([]);
  });

  it('sends no duplicate when the same event is handled again, re-published, or read by a second consumer', async () => {
    const token = newToken();
    const alice = await makeUser('BASIC', true);
    await accounts.addToWatchlist(alice.id, 1, token);
    await startConsumer('consumer-b', MAX_ATTEMPTS);

    const data = alertData(token, 'rug', 'liquidity pulled', {
      bucket_at: '2024-05-01T12:00:00.000Z',
    });
    const id = await events.publish({ type: 'alert', data });
    await eventually(
      async () => (mailsTo(alice.email).length > 0 ? true : undefined),
      10_000,
      'the rug email',
    );
    await settled();
    // Re-delivery: the same entry handled again, by both consumers.
    const message = { id, type: 'alert' as const, ts: new Date().toISOString(), data };
    await Promise.all(consumers.map((c) => c.handle(message)));
    // The producer repeating itself (at-least-once): a new entry, the same alert.
    await events.publish({ type: 'alert', data });
    await events.publish({ type: 'alert', data });
    await settled();
    await sleep(QUIET_MS);
    expect(mailsTo(alice.email)).toHaveLength(1);
    expect(await alerts.deliveries(alice.id)).toHaveLength(1);
  });

  it('retries a failed send: the entry stays pending and is re-claimed, and the email goes out once', async () => {
    const token = newToken();
    const [alice, erin] = [await makeUser('BASIC', true), await makeUser('PRO', true)];
    await accounts.addToWatchlist(alice.id, 1, token);
    await accounts.addToWatchlist(erin.id, 1, token);
    rejectNext = 1; // the first of the two sends fails

    await events.publish({
      type: 'alert',
      data: alertData(token, 'liquidity_pull', 'liquidity fell 80%'),
    });
    await eventually(
      async () =>
        mailsTo(alice.email).length === 1 && mailsTo(erin.email).length === 1 ? true : undefined,
      15_000,
      'both emails after the retry',
    );
    expect(rejectNext).toBe(0);
    await settled();
    await sleep(QUIET_MS);
    expect(mailsTo(alice.email)).toHaveLength(1);
    expect(mailsTo(erin.email)).toHaveLength(1);
    expect((await alerts.deliveries(alice.id))[0]!.emailedAt).not.toBeNull();
  });

  it('gives up an entry whose email keeps failing, after maxAttempts deliveries', async () => {
    const token = newToken();
    const ivan = await makeUser('PRO', true);
    await accounts.addToWatchlist(ivan.id, 1, token);
    rejectNext = 1_000;
    await events.publish({
      type: 'alert',
      data: alertData(token, 'honeypot', 'honeypot detected'),
    });
    await settled();
    expect(mailsTo(ivan.email)).toHaveLength(0);
    const [row] = await alerts.deliveries(ivan.id);
    expect(row!.emailedAt).toBeNull();
    rejectNext = 0;
  });

  it('respects alert_kinds', async () => {
    const token = newToken();
    const frank = await makeUser('PRO', true);
    await accounts.setAlertPreferences(
      frank.id,
      { emailAlerts: true, alertKinds: ['honeypot'] },
      new Date(),
    );
    await accounts.addToWatchlist(frank.id, 1, token);
    await events.publish({
      type: 'alert',
      data: alertData(token, 'liquidity_pull', 'liquidity fell 80%'),
    });
    await events.publish({
      type: 'alert',
      data: alertData(token, 'honeypot', 'honeypot detected'),
    });
    await settled();
    await sleep(QUIET_MS);
    expect(mailsTo(frank.email).map((m) => /Subject: ([^\r\n]+)/.exec(m.raw)![1])).toEqual([
      expect.stringContaining('Honeypot detected'),
    ]);
  });

  it('derives owner changed, tax raised and mint after launch from successive token.updated payloads of a watched token', async () => {
    const token = newToken();
    const gina = await makeUser('BASIC', true);
    await accounts.addToWatchlist(gina.id, 1, token);
    const row = {
      ...storedToken(token),
      totalSupply: '1000',
      currentRiskLevel: 'low' as const,
      currentRiskScore: 10,
      securityHints: { owner_address: addr(2) },
      tradingSimulation: { buy_tax_pct: 0, sell_tax_pct: 0 },
    };
    const previous = {
      current_risk_score: null,
      current_risk_level: null,
      current_liquidity_usd: null,
      price_usd: null,
    };
    await events.publish({
      type: 'token.updated',
      data: tokenUpdatedData(row, { source: 'risk', changes: ['risk'], previous }),
    });
    await settled();
    const changed = {
      ...row,
      totalSupply: '2000',
      securityHints: { owner_address: addr(3) },
      tradingSimulation: { buy_tax_pct: 0, sell_tax_pct: 30 },
    };
    const updated = await events.publish({
      type: 'token.updated',
      data: tokenUpdatedData(changed, {
        source: 'risk',
        changes: ['taxes'],
        previous: { ...previous, current_risk_score: 10 },
      }),
    });
    const mails = await eventually(
      async () => (mailsTo(gina.email).length >= 3 ? mailsTo(gina.email) : undefined),
      10_000,
      'three derived emails',
    );
    const subjects = mails.map((m) => /Subject: ([^\r\n]+)/.exec(m.raw)![1]).sort();
    expect(subjects).toEqual([
      expect.stringContaining('Owner changed'),
      expect.stringContaining('Tax raised'),
      expect.stringContaining('Tokens minted after launch'),
    ]);
    // Published as alert events: WebSocket clients see them too, keyed by the source entry.
    const entries = (await general.xrange(streamKey, updated, '+')) as [string, string[]][];
    const kinds = entries
      .map(([, f]) => f)
      .filter((f) => f[1] === 'alert')
      .map((f) => JSON.parse(f[5]!) as { type: string; alert_key: string });
    expect(kinds.map((k) => k.type).sort()).toEqual([
      'mint_after_launch',
      'owner_changed',
      'tax_raised',
    ]);
    expect(kinds.every((k) => k.alert_key.endsWith(updated))).toBe(true);
    await settled();
    await sleep(QUIET_MS);
    expect(mailsTo(gina.email)).toHaveLength(3);
  });

  it('follows no token that nobody watches', async () => {
    const token = newToken();
    await events.publish({
      type: 'token.updated',
      data: {
        contract_address: token,
        chain_id: 1,
        total_supply: '1',
        current_risk_level: 'low',
      } as never,
    });
    await settled();
    expect(await general.exists(`${testRedis.prefix}:alerts:snapshot:1:${token}`)).toBe(0);
  });

  it('runs in the worker role of the service, with SMTP_URL', async () => {
    const prefix = `${testRedis.prefix}-svc`;
    const service = await startService({
      roles: new Set(['worker']),
      databaseUrl: database.url,
      redisUrl: testRedis.url,
      redisPrefix: prefix,
      chains: [],
      knownChainIds: new Set([1]),
      port: 0,
      host: '127.0.0.1',
      logger: silentLogger,
      poolMax: 2,
      smtpUrl,
      alertEmailFrom: 'ops@example.com',
    });
    try {
      const token = newToken();
      const hank = await makeUser('PRO', true);
      await accounts.addToWatchlist(hank.id, 1, token);
      await createEventPublisher(general, `${prefix}:events`).publish({
        type: 'alert',
        data: alertData(token, 'honeypot', 'honeypot detected'),
      });
      const [mail] = await eventually(
        async () => (mailsTo(hank.email).length > 0 ? mailsTo(hank.email) : undefined),
        10_000,
        'the email from the service',
      );
      expect(mail!.raw).toContain('ops@example.com');
    } finally {
      await service.stop();
    }
  });
});
