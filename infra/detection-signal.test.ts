import type { Redis } from 'ioredis';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestRedis, type TestRedis } from '../test/support/services.ts';
import { createDetectionSignal, type DetectionSignal } from './detection-signal.ts';
import { createRedis } from './redis.ts';

const logger = pino({ level: 'silent' });
let testRedis: TestRedis;
let publisher: Redis;
const opened: DetectionSignal[] = [];

beforeAll(async () => {
  testRedis = await createTestRedis();
  publisher = createRedis(testRedis.url, 'commands');
});

afterAll(async () => {
  for (const signal of opened) await signal.close();
  publisher?.disconnect();
  await testRedis?.cleanup();
});

/** A signal on `channel` that hears the others, with a clock the test may move. */
function listening(channel: string, now?: () => number) {
  const signal = createDetectionSignal({
    publisher,
    subscriber: createRedis(testRedis.url, 'worker'),
    channel,
    logger,
    now,
  });
  opened.push(signal);
  return signal;
}

const until = async (condition: () => boolean, what: string) => {
  for (let i = 0; i < 200; i++) {
    if (condition()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`not within 2 s: ${what}`);
};

/** Lets a subscription take effect before the first message (SUBSCRIBE is asynchronous). */
async function subscribed(channel: string) {
  for (let i = 0; i < 200; i++) {
    const [, count] = (await publisher.pubsub('NUMSUB', channel)) as [string, number];
    if (count > 0) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`${channel}: no subscriber`);
}

describe('detection signal', () => {
  it('tells the other processes that a chain is being detected, per chain, until its last detection ends', async () => {
    const channel = `${testRedis.prefix}:detecting-a`;
    const detector = listening(channel);
    const analysis = listening(channel);
    await subscribed(channel);
    const idle: number[] = [];
    analysis.onIdle(1, () => idle.push(1));

    detector.begin(1);
    detector.begin(1);
    await until(() => analysis.othersDetecting(1), 'chain 1 busy elsewhere');
    expect(analysis.othersDetecting(2)).toBe(false);
    // A process's own detection is not "others'" (its pool sees its own requests).
    expect(detector.othersDetecting(1)).toBe(false);

    detector.end(1);
    await new Promise((r) => setTimeout(r, 50));
    expect(analysis.othersDetecting(1)).toBe(true);
    expect(idle).toEqual([]);

    detector.end(1);
    await until(() => !analysis.othersDetecting(1), 'chain 1 idle');
    expect(idle).toEqual([1]);
  });

  it('forgets a sender that went silent while busy (it died mid-job)', async () => {
    const channel = `${testRedis.prefix}:detecting-b`;
    let t = 1_000_000;
    const analysis = listening(channel, () => t);
    await subscribed(channel);
    // A busy message and nothing after it: no heartbeat, no end.
    await publisher.publish(channel, JSON.stringify({ sender: 'gone', chainId: 7, busy: true }));
    await until(() => analysis.othersDetecting(7), 'chain 7 busy');
    t += 2_000;
    expect(analysis.othersDetecting(7)).toBe(true);
    t += 1_500;
    expect(analysis.othersDetecting(7)).toBe(false);
  });

  it('ignores messages it cannot read', async () => {
    const channel = `${testRedis.prefix}:detecting-c`;
    const analysis = listening(channel);
    await subscribed(channel);
    await publisher.publish(channel, 'not json');
    await publisher.publish(channel, JSON.stringify({ sender: 'x', chainId: '7', busy: true }));
    await publisher.publish(channel, JSON.stringify({ sender: 'y', chainId: 8, busy: true }));
    await until(() => analysis.othersDetecting(8), 'chain 8 busy');
    expect(analysis.othersDetecting(7)).toBe(false);
  });

  it('says its detection ended when it closes mid-detection', async () => {
    const channel = `${testRedis.prefix}:detecting-d`;
    const detector = createDetectionSignal({ publisher, channel, logger });
    const analysis = listening(channel);
    await subscribed(channel);
    detector.begin(3);
    await until(() => analysis.othersDetecting(3), 'chain 3 busy');
    await detector.close();
    await until(() => !analysis.othersDetecting(3), 'chain 3 idle after close');
  });
});
