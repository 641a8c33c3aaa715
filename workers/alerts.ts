import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Redis } from 'ioredis';
import nodemailer from 'nodemailer';
import type { Logger } from 'pino';
import type { AlertRepository } from '../db/repositories/alerts.ts';
import { decodeEntry, type EventPublisher } from '../infra/events.ts';
import {
  alertEmail,
  alertOf,
  compareSnapshots,
  derivedAlertKey,
  type TokenAlert,
  type TokenSnapshot,
  wantsAlert,
} from '../src/alerts.ts';
import type { EventMessage, TokenUpdatedData } from '../src/events/types.ts';

/**
 * The alerts consumer: reads the event stream in the consumer group `alerts` (XREADGROUP), turns
 * `alert` events about watched tokens into per-user deliveries (alert_deliveries, unique per user
 * and alert key) and emails, and derives owner/tax/mint/risk-level alerts from successive
 * `token.updated` payloads (src/alerts.ts), which it publishes back to the stream as `alert`
 * events — so WebSocket clients see them too, and this consumer delivers them like the others.
 *
 * An entry is acknowledged (XACK) only once handled; a failure (database, SMTP) leaves it pending,
 * and XAUTOCLAIM hands it to a live consumer once it has been idle CLAIM_IDLE_MS (also after a
 * crash). Re-handling is harmless: deliveries are inserted with on conflict do nothing, and only
 * emails not yet sent are sent, each claimed with a lease so two consumers never both send it.
 * An entry delivered more than `maxAttempts` times is logged and acknowledged without handling.
 */

export const ALERTS_GROUP = 'alerts';
const BATCH = 50;
const DEFAULT_BLOCK_MS = 1_000;
const DEFAULT_CLAIM_IDLE_MS = 30_000;
/** A consumer that claimed an email and died: another may send it after this long. */
const EMAIL_CLAIM_LEASE_MS = 60_000;
const ERROR_PAUSE_MS = 500;
/** An entry delivered this many times is given up (logged and acknowledged): one poison entry must not retry forever. */
const DEFAULT_MAX_ATTEMPTS = 20;
/** Token snapshots of watched tokens, for the derived alerts; refreshed on every update. */
const SNAPSHOT_TTL_SECONDS = 30 * 24 * 3_600;
export const DEFAULT_ALERT_EMAIL_FROM = 'alerts@token-monitor.local';

export interface Mailer {
  send(message: { from: string; to: string; subject: string; text: string }): Promise<void>;
  close(): void;
}

export function createMailer(smtpUrl: string): Mailer {
  const transport = nodemailer.createTransport(smtpUrl);
  return {
    async send(message) {
      await transport.sendMail(message);
    },
    close: () => transport.close(),
  };
}

export interface AlertsConsumerDeps {
  /** A connection of its own: XREADGROUP blocks it. */
  redis: Redis;
  streamKey: string;
  /** Key prefix for the token snapshots. */
  prefix: string;
  alerts: AlertRepository;
  events: EventPublisher;
  logger: Logger;
  /** No mailer: alerts are recorded, no email is owed. */
  mailer?: Mailer;
  from?: string;
  consumerName?: string;
  blockMs?: number;
  claimIdleMs?: number;
  maxAttempts?: number;
  clock?: () => Date;
}

type StreamEntry = [id: string, fields: string[] | null];

export interface AlertsConsumer {
  /** Handles one event (exposed for tests of re-delivery); throws when something must be retried. */
  handle(event: EventMessage): Promise<void>;
  stop(): Promise<void>;
}

/** What the consumer's handlers work with: its dependencies and the defaults they fill in. */
interface AlertsContext {
  deps: AlertsConsumerDeps;
  log: Logger;
  from: string;
  clock: () => Date;
}

function snapshotKey(prefix: string, chainId: number, address: string): string {
  return `${prefix}:alerts:snapshot:${chainId}:${address}`;
}

/** Creates the consumer group unless it exists. */
async function ensureGroup(redis: Redis, streamKey: string): Promise<void> {
  try {
    // '$': a new group starts with the events published from now on.
    await redis.xgroup('CREATE', streamKey, ALERTS_GROUP, '$', 'MKSTREAM');
  } catch (error) {
    if (!/BUSYGROUP/.test((error as Error).message)) throw error;
  }
}

/** Emails the alert to the recipients still owed it; throws after trying them all if any failed. */
async function sendOwedEmails(
  ctx: AlertsContext,
  mailer: Mailer,
  alert: TokenAlert,
): Promise<void> {
  const { deps, log, clock } = ctx;
  const owed = await deps.alerts.claimPendingEmails(alert.key, clock(), EMAIL_CLAIM_LEASE_MS);
  let failed: Error | undefined;
  for (const recipient of owed) {
    try {
      await mailer.send(alertEmail(alert, recipient.email, ctx.from));
      await deps.alerts.markEmailed(recipient.userId, alert.key, clock());
    } catch (error) {
      failed = error as Error;
      log.warn(
        { err: error, alert_key: alert.key, user_id: recipient.userId },
        'alert email failed; will retry',
      );
      await deps.alerts.releaseClaim(recipient.userId, alert.key).catch(() => {});
    }
  }
  if (failed) throw failed;
}

/** Records the alert for each watcher who wants it, then sends the emails owed. */
async function deliver(ctx: AlertsContext, alert: TokenAlert): Promise<void> {
  const { deps, log } = ctx;
  const watchers = await deps.alerts.watchers(alert.chainId, alert.address);
  const wanted = watchers.filter((w) => wantsAlert(w.preferences, alert.kind));
  const recorded = await deps.alerts.record(
    wanted.map((w) => ({
      userId: w.userId,
      alertKey: alert.key,
      kind: alert.kind,
      chainId: alert.chainId,
      address: alert.address,
      streamId: alert.streamId,
      message: alert.message,
      emailWanted: w.emailAlerts && deps.mailer !== undefined,
    })),
  );
  if (recorded.length > 0)
    log.info({ alert_key: alert.key, kind: alert.kind, users: recorded.length }, 'alert recorded');
  if (!deps.mailer) return;
  await sendOwedEmails(ctx, deps.mailer, alert);
}

/** Publishes the alerts a watched token's update implies against its last snapshot. */
async function derive(ctx: AlertsContext, data: TokenUpdatedData, streamId: string): Promise<void> {
  const { deps } = ctx;
  const { chain_id: chainId, contract_address: address } = data;
  // Only watched tokens are followed: nobody would receive the others' alerts.
  if ((await deps.alerts.watchers(chainId, address)).length === 0) return;
  const key = snapshotKey(deps.prefix, chainId, address);
  const stored = await deps.redis.get(key);
  const previous = stored ? (JSON.parse(stored) as TokenSnapshot) : undefined;
  const { alerts, next } = compareSnapshots(previous, data);
  for (const alert of alerts) {
    await deps.events.publish({
      type: 'alert',
      data: {
        contract_address: address,
        chain_id: chainId,
        type: alert.kind,
        message: alert.message,
        alert_key: derivedAlertKey(alert.kind, chainId, address, streamId),
        bucket_at: null,
        details: { source_event: streamId, ...alert.detail },
      },
    });
  }
  // After publishing: a crash in between re-derives the same alerts, with the same keys.
  await deps.redis.set(key, JSON.stringify(next), 'EX', SNAPSHOT_TTL_SECONDS);
}

/** How many times the group has delivered this entry (XPENDING's delivery counter). */
async function deliveries(redis: Redis, streamKey: string, id: string): Promise<number> {
  const [row] = (await redis.xpending(streamKey, ALERTS_GROUP, id, id, 1)) as [
    string,
    string,
    number,
    number,
  ][];
  return row ? Number(row[3]) : 0;
}

export async function startAlertsConsumer(deps: AlertsConsumerDeps): Promise<AlertsConsumer> {
  const log = deps.logger.child({ component: 'alerts' });
  const consumer = deps.consumerName ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  const blockMs = deps.blockMs ?? DEFAULT_BLOCK_MS;
  const claimIdleMs = deps.claimIdleMs ?? DEFAULT_CLAIM_IDLE_MS;
  const maxAttempts = deps.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
  const ctx: AlertsContext = {
    deps,
    log,
    from: deps.from ?? DEFAULT_ALERT_EMAIL_FROM,
    clock: deps.clock ?? (() => new Date()),
  };

  await ensureGroup(deps.redis, deps.streamKey);

  async function handle(event: EventMessage): Promise<void> {
    if (event.type === 'token.updated') return derive(ctx, event.data, event.id);
    const alert = alertOf(event);
    if (alert) await deliver(ctx, alert);
  }

  async function processEntries(entries: StreamEntry[], reclaimed: boolean): Promise<void> {
    for (const [id, fields] of entries) {
      const event = fields ? decodeEntry([id, fields]) : undefined;
      try {
        if (
          event &&
          reclaimed &&
          (await deliveries(deps.redis, deps.streamKey, id)) > maxAttempts
        ) {
          log.error(
            { stream_id: id, type: event.type, attempts: maxAttempts },
            'alert event given up after repeated failures',
          );
        } else if (event) await handle(event);
        await deps.redis.xack(deps.streamKey, ALERTS_GROUP, id);
      } catch (error) {
        // Left pending: XAUTOCLAIM retries it once idle.
        log.warn({ err: error, stream_id: id }, 'alert event not handled; left pending');
      }
    }
  }

  let stopped = false;
  let claimCursor = '0-0';
  const loop = (async () => {
    while (!stopped) {
      try {
        const claimed = (await deps.redis.xautoclaim(
          deps.streamKey,
          ALERTS_GROUP,
          consumer,
          claimIdleMs,
          claimCursor,
          'COUNT',
          BATCH,
        )) as unknown as [string, StreamEntry[], string[]?];
        claimCursor = claimed[0];
        await processEntries(claimed[1], true);
        if (stopped) break;
        const reply = (await deps.redis.xreadgroup(
          'GROUP',
          ALERTS_GROUP,
          consumer,
          'COUNT',
          BATCH,
          'BLOCK',
          blockMs,
          'STREAMS',
          deps.streamKey,
          '>',
        )) as [string, StreamEntry[]][] | null;
        for (const [, entries] of reply ?? []) await processEntries(entries, false);
      } catch (error) {
        if (stopped) break;
        log.error({ err: error }, 'alerts consumer read failed');
        await new Promise((r) => setTimeout(r, ERROR_PAUSE_MS));
      }
    }
  })();

  return {
    handle,
    async stop() {
      stopped = true;
      await loop;
    },
  };
}
