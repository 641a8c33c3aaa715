import type { Redis } from 'ioredis';
import type { EventMessage, EventType, ServiceEvent } from '../src/events/types.ts';

/**
 * The event stream: one bounded Redis stream. Workers append; each API instance reads it and
 * fans out to its WebSocket clients, and replays it for clients that reconnect with `since`.
 */

/** Approximate cap; at several events a second this still keeps well over an hour. */
export const STREAM_MAX_LENGTH = 100_000;
const STREAM_ID = /^\d{1,20}-\d{1,20}$/;

/** How long an announcement's once-key is remembered: longer than any retry of the job. */
export const ANNOUNCE_ONCE_TTL_SECONDS = 3_600;

/**
 * Appends the event unless its once-key was set by an earlier append: the key and the entry are
 * written together (one script runs atomically), so a job retried after a crash between the append
 * and its own bookkeeping does not announce twice, and a crash before the append loses nothing.
 */
const APPEND_ONCE = `
if redis.call('SET', KEYS[2], '1', 'NX', 'EX', ARGV[1]) == false then return false end
return redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[2], '*', 'type', ARGV[3], 'ts', ARGV[4],
  'data', ARGV[5])`;

export interface PublishOptions {
  /** Names one announcement: a second publish under the same key within the TTL is skipped. */
  onceKey?: string;
}

export interface EventPublisher {
  /** Appends the event; resolves to the entry's stream id. */
  publish(event: ServiceEvent): Promise<string>;
  /** Appends it once per `onceKey`: null when an earlier append under the key made it already. */
  publish(event: ServiceEvent, options: PublishOptions): Promise<string | null>;
}

type WithAppendOnce = Redis & {
  appendOnce?: (...keysAndArgs: (string | number)[]) => Promise<string | null>;
};

export function createEventPublisher(redis: Redis, streamKey: string): EventPublisher {
  // A defined command is sent as EVALSHA (the script's text travels only when the server lacks
  // it): a publish costs one round trip without re-sending the script each time.
  const client = redis as WithAppendOnce;
  if (!client.appendOnce) client.defineCommand('appendOnce', { numberOfKeys: 2, lua: APPEND_ONCE });
  const appendOnce = client.appendOnce!.bind(client);
  return {
    async publish(event: ServiceEvent, options?: PublishOptions): Promise<string> {
      const ts = new Date().toISOString();
      const data = JSON.stringify(event.data);
      if (options?.onceKey) {
        const onceKey = `${streamKey}:once:${options.onceKey}`;
        const args = [ANNOUNCE_ONCE_TTL_SECONDS, STREAM_MAX_LENGTH, event.type, ts, data];
        // null (already announced) only ever reaches callers of the once-keyed signature.
        return (await appendOnce(streamKey, onceKey, ...args)) as string;
      }
      const id = await redis.xadd(
        streamKey,
        'MAXLEN',
        '~',
        STREAM_MAX_LENGTH,
        '*',
        'type',
        event.type,
        'ts',
        ts,
        'data',
        data,
      );
      if (!id) throw new Error('XADD returned no id');
      return id;
    },
  };
}

export function isStreamId(value: string): boolean {
  return STREAM_ID.test(value);
}

type StreamEntry = [id: string, fields: string[]];

export function decodeEntry([id, fields]: StreamEntry): EventMessage | undefined {
  const map = new Map<string, string>();
  for (let i = 0; i + 1 < fields.length; i += 2) map.set(fields[i]!, fields[i + 1]!);
  const type = map.get('type') as EventType | undefined;
  const data = map.get('data');
  if (!type || !data) return undefined;
  try {
    return {
      id,
      type,
      ts: map.get('ts') ?? new Date(Number(id.split('-')[0])).toISOString(),
      data: JSON.parse(data),
    };
  } catch {
    return undefined;
  }
}

/** Events after `sinceId` (exclusive), oldest first, at most `limit`. */
export async function readEventsSince(
  redis: Redis,
  streamKey: string,
  sinceId: string,
  limit: number,
): Promise<EventMessage[]> {
  const entries = (await redis.xrange(
    streamKey,
    `(${sinceId}`,
    '+',
    'COUNT',
    limit,
  )) as StreamEntry[];
  return entries.map(decodeEntry).filter((e): e is EventMessage => e !== undefined);
}

/** The id of the newest entry, or 0-0 for an empty stream (every later entry is newer). */
async function lastEntryId(redis: Redis, streamKey: string): Promise<string> {
  const [last] = (await redis.xrevrange(streamKey, '+', '-', 'COUNT', 1)) as StreamEntry[];
  return last ? last[0] : '0-0';
}

export interface EventTail {
  stop(): Promise<void>;
}

/**
 * Follows the stream from now on with a blocking XREAD on a dedicated connection.
 * `onEvent` must not throw; it is called in stream order.
 */
export function tailEvents(
  redis: Redis,
  streamKey: string,
  onEvent: (event: EventMessage) => void,
  onError: (error: Error) => void,
): EventTail {
  const BLOCK_MS = 1_000;
  let stopped = false;
  let lastId = '$';
  const loop = (async () => {
    while (!stopped) {
      try {
        // Pin '$' to a concrete id once: re-issuing '$' after a read that timed out empty would skip
        // whatever was appended between the two reads.
        if (lastId === '$') lastId = await lastEntryId(redis, streamKey);
        const reply = (await redis.xread(
          'COUNT',
          500,
          'BLOCK',
          BLOCK_MS,
          'STREAMS',
          streamKey,
          lastId,
        )) as [string, StreamEntry[]][] | null;
        if (!reply) continue;
        for (const [, entries] of reply) {
          for (const entry of entries) {
            lastId = entry[0];
            const event = decodeEntry(entry);
            if (event) onEvent(event);
          }
        }
      } catch (error) {
        if (stopped) break;
        onError(error as Error);
        await new Promise((r) => setTimeout(r, 500));
      }
    }
  })();
  return {
    async stop() {
      stopped = true;
      redis.disconnect();
      await loop;
    },
  };
}
