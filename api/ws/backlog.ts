import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { readEventsSince } from '../../infra/events.ts';
import { MAX_UNSENT_BYTES, matches } from './fanout.ts';
import type { Client, ClientRegistry } from './registry.ts';

/**
 * Resuming with `?since=` (docs/websocket.md): the stream after the client's last id, page by
 * page, then the live events held back meanwhile, then the fan-out. Replay respects backpressure:
 * each page waits for the client to read the previous one.
 */

const BACKLOG_PAGE_SIZE = 1_000;
/** Live events held for a client still replaying its backlog. */
const MAX_HELD_EVENTS = 50_000;
const BACKLOG_DRAIN_TIMEOUT_MS = 10_000;
const DRAIN_POLL_MS = 20;

export type BacklogReplay = (client: Client, since: string) => Promise<void>;

export function createBacklogReplay(deps: {
  redis: Redis;
  streamKey: string;
  registry: ClientRegistry;
  log: Logger;
}): BacklogReplay {
  const { registry } = deps;

  /** Waits until the client has read most of what was sent; false if it does not in time. */
  const drained = async (client: Client): Promise<boolean> => {
    const deadline = Date.now() + BACKLOG_DRAIN_TIMEOUT_MS;
    while (client.socket.bufferedAmount > MAX_UNSENT_BYTES / 2) {
      if (Date.now() > deadline || !registry.has(client)) return false;
      await new Promise((r) => setTimeout(r, DRAIN_POLL_MS));
    }
    return true;
  };

  /** The stream after `since`; the last id sent, or undefined when the client was dropped. */
  const replayPages = async (client: Client, since: string): Promise<string | undefined> => {
    let lastId = since;
    for (;;) {
      const page = await readEventsSince(deps.redis, deps.streamKey, lastId, BACKLOG_PAGE_SIZE);
      for (const event of page) {
        if (matches(client.subscription, event)) client.socket.send(JSON.stringify(event));
        lastId = event.id;
      }
      // A client that cannot read its backlog, or falls this far behind while catching up, is
      // too slow to serve.
      if (!(await drained(client)) || (client.pending?.length ?? 0) > MAX_HELD_EVENTS) {
        registry.dropSlow(client);
        return undefined;
      }
      if (page.length < BACKLOG_PAGE_SIZE || !registry.has(client)) return lastId;
    }
  };

  return async (client, since) => {
    try {
      const lastId = await replayPages(client, since);
      if (lastId === undefined) return;
      const held = client.pending ?? [];
      client.pending = undefined;
      for (const event of held) {
        if (compareIds(event.id, lastId) <= 0 || !matches(client.subscription, event)) continue;
        if (client.socket.bufferedAmount > MAX_UNSENT_BYTES) return registry.dropSlow(client);
        client.socket.send(JSON.stringify(event));
      }
    } catch (error) {
      deps.log.warn({ err: (error as Error).message }, 'backlog read failed');
      client.pending = undefined;
    }
    registry.goLive(client);
  };
}

export function compareIds(a: string, b: string): number {
  const [am, as] = a.split('-').map(BigInt) as [bigint, bigint];
  const [bm, bs] = b.split('-').map(BigInt) as [bigint, bigint];
  return am === bm ? Number(as - bs) : am < bm ? -1 : 1;
}
