import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';

/**
 * Detection's "busy" signal between processes, over Redis pub/sub. A process that runs the detect
 * stage says when it starts and ends detecting a chain's blocks; a process that runs analysis hears
 * it, and its endpoint pool then serves the analysis stages as if detection were running beside
 * them (infra/rpc/endpoints.ts: at most a share of the node's slots). Within one process the pool
 * sees detection's requests itself; across processes (detection in a worker of its own, the
 * deployment for bursts) it needs this, or the analysis of a burst keeps the node busy while the
 * next block is detected (docs/scale.md, back-pressure).
 *
 * Advisory only: a lost message costs some latency, never a token. A sender that dies while busy
 * is forgotten after STALE_AFTER_MS (a busy sender repeats itself every HEARTBEAT_MS).
 */

const HEARTBEAT_MS = 1_000;
const STALE_AFTER_MS = 3 * HEARTBEAT_MS;

interface SignalMessage {
  sender: string;
  chainId: number;
  busy: boolean;
}

export interface DetectionSignal {
  /** Detection of `chainId` starts here (calls nest: busy until the last `end`). */
  begin(chainId: number): void;
  end(chainId: number): void;
  /** Another process is detecting `chainId` now. */
  othersDetecting(chainId: number): boolean;
  /** `listener` runs when another process is no longer detecting `chainId`. */
  onIdle(chainId: number, listener: () => void): void;
  close(): Promise<void>;
}

export interface DetectionSignalOptions {
  /** A connection for PUBLISH (any commands connection). */
  publisher: Redis;
  /**
   * A connection of its own for SUBSCRIBE (pub/sub takes it over), closed with the signal; absent:
   * this process only sends.
   */
  subscriber?: Redis;
  channel: string;
  logger: Logger;
  now?: () => number;
}

export function createDetectionSignal(options: DetectionSignalOptions): DetectionSignal {
  const { publisher, subscriber, channel, logger } = options;
  const now = options.now ?? Date.now;
  const sender = randomUUID();
  /** This process's detections in progress, per chain. */
  const active = new Map<number, number>();
  /** Other processes busy per chain: sender → when its signal goes stale. */
  const others = new Map<number, Map<string, number>>();
  const idleListeners = new Map<number, (() => void)[]>();
  const heartbeats = new Map<number, NodeJS.Timeout>();

  const publish = (chainId: number, busy: boolean) => {
    const message: SignalMessage = { sender, chainId, busy };
    publisher.publish(channel, JSON.stringify(message)).catch((error: unknown) => {
      logger.debug({ err: error, chain: chainId }, 'detection signal not sent');
    });
  };

  const onMessage = (from: string, raw: string) => {
    if (from !== channel) return;
    let message: SignalMessage;
    try {
      message = JSON.parse(raw) as SignalMessage;
    } catch {
      return;
    }
    if (message.sender === sender || typeof message.chainId !== 'number') return;
    const busy = others.get(message.chainId) ?? new Map<string, number>();
    others.set(message.chainId, busy);
    if (message.busy) {
      busy.set(message.sender, now() + STALE_AFTER_MS);
      return;
    }
    busy.delete(message.sender);
    if (busy.size === 0)
      for (const listener of idleListeners.get(message.chainId) ?? []) listener();
  };

  if (subscriber) {
    subscriber.on('message', onMessage);
    subscriber.subscribe(channel).catch((error: unknown) => {
      logger.warn({ err: error }, 'detection signal: subscription failed');
    });
  }

  return {
    begin(chainId) {
      const count = (active.get(chainId) ?? 0) + 1;
      active.set(chainId, count);
      if (count > 1) return;
      publish(chainId, true);
      const heartbeat = setInterval(() => publish(chainId, true), HEARTBEAT_MS);
      heartbeat.unref();
      heartbeats.set(chainId, heartbeat);
    },
    end(chainId) {
      const count = (active.get(chainId) ?? 0) - 1;
      if (count > 0) {
        active.set(chainId, count);
        return;
      }
      active.delete(chainId);
      clearInterval(heartbeats.get(chainId));
      heartbeats.delete(chainId);
      publish(chainId, false);
    },
    othersDetecting(chainId) {
      const busy = others.get(chainId);
      if (!busy) return false;
      const t = now();
      for (const [from, staleAt] of busy) if (staleAt <= t) busy.delete(from);
      return busy.size > 0;
    },
    onIdle(chainId, listener) {
      idleListeners.set(chainId, [...(idleListeners.get(chainId) ?? []), listener]);
    },
    async close() {
      for (const heartbeat of heartbeats.values()) clearInterval(heartbeat);
      heartbeats.clear();
      for (const chainId of active.keys()) publish(chainId, false);
      active.clear();
      if (subscriber) {
        subscriber.off('message', onMessage);
        await subscriber.unsubscribe(channel).catch(() => {});
        subscriber.disconnect();
      }
    },
  };
}
