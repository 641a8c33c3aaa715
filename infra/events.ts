import type { Redis } from 'ioredis';
import type { EventMessage, EventType, ServiceEvent } from '../src/events/types.ts';

/**
 * The event stream: one bounded Redis stream. Workers append; each API instance reads it and
 * fans out to its WebSocket clients, and replays it for clients that reconnect with `since`.
 */

/** Approximate cap; at several events a second this still keeps well over an hour. */
export const STREAM_MAX_LENGTH = 100_000;
const STREAM_ID = /^\d{1,20}-\d{1,20}$/;

export interface EventPublisher {
  publish(event: ServiceEvent): Promise<string>;
}

export function createEventPublisher(redis: Redis, streamKey: string): EventPublisher {
  return {
    async publish(event) {
      const ts = new Date().toISOString();
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
        JSON.stringify(event.data),
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
