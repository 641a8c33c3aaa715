import { describe, expect, it } from 'vitest';
import type { EventMessage } from '../../src/events/types.ts';
import { createFanout, type FanoutMember, MAX_UNSENT_BYTES, textFrame } from './fanout.ts';

const event = (id: string, chainId: number, score?: number): EventMessage =>
  ({
    id,
    type: score === undefined ? 'alert' : 'token.updated',
    ts: '2026-01-01T00:00:00.000Z',
    data: {
      contract_address: `0x${'a'.repeat(40)}`,
      chain_id: chainId,
      kind: 'k',
      message: 'm',
      ...(score === undefined ? {} : { current_risk_score: score }),
    },
  }) as unknown as EventMessage;

/** A member recording what was written to its "connection". */
function member(options: { unsent?: number; open?: boolean } = {}) {
  const writes: Buffer[] = [];
  let slow = 0;
  const m: FanoutMember = {
    wire: {
      write: (chunk: Buffer) => {
        writes.push(chunk);
        return true;
      },
      writableLength: options.unsent ?? 0,
    },
    socket: { readyState: (options.open ?? true) ? 1 : 2 },
    onSlow: () => {
      slow++;
    },
  };
  return { m, writes, slow: () => slow };
}

/** Splits concatenated server frames back into their text payloads. */
function payloads(buffer: Buffer): string[] {
  const out: string[] = [];
  let offset = 0;
  while (offset < buffer.length) {
    expect(buffer[offset]).toBe(0x81);
    let length = buffer[offset + 1]!;
    let header = 2;
    if (length === 126) {
      length = buffer.readUInt16BE(offset + 2);
      header = 4;
    } else if (length === 127) {
      length = Number(buffer.readBigUInt64BE(offset + 2));
      header = 10;
    }
    out.push(buffer.subarray(offset + header, offset + header + length).toString());
    offset += header + length;
  }
  return out;
}

describe('WebSocket fan-out', () => {
  it('frames text with the 7-bit, 16-bit and 64-bit length forms', () => {
    for (const size of [0, 125, 126, 65_535, 65_536]) {
      const text = 'x'.repeat(size);
      expect(payloads(textFrame(Buffer.from(text)))).toEqual([text]);
    }
  });

  it('groups equal filters into one class and sends each member one buffer of the events it wants', () => {
    const fanout = createFanout();
    const all = member();
    const bscA = member();
    const bscB = member();
    const risky = member();
    fanout.join(all.m, {});
    fanout.join(bscA.m, { chainIds: new Set([56]) });
    fanout.join(bscB.m, { chainIds: new Set([56]) });
    fanout.join(risky.m, { minRiskScore: 70 });
    expect(fanout.classCount()).toBe(3);
    const events = [event('1-0', 1), event('2-0', 56), event('3-0', 56, 10), event('4-0', 1, 90)];
    fanout.publish(events);
    const ids = (writes: Buffer[]) =>
      writes.flatMap((w) => payloads(w)).map((p) => (JSON.parse(p) as EventMessage).id);
    expect(all.writes).toHaveLength(1);
    expect(ids(all.writes)).toEqual(['1-0', '2-0', '3-0', '4-0']);
    expect(ids(bscA.writes)).toEqual(['2-0', '3-0']);
    // One class, one buffer: both members got the very same bytes.
    expect(bscB.writes[0]).toBe(bscA.writes[0]);
    expect(ids(risky.writes)).toEqual(['1-0', '2-0', '4-0']);
    expect(JSON.parse(payloads(all.writes[0]!)[0]!)).toEqual(events[0]);
  });

  it('skips a member that does not drain (reported slow) and one that is closing; the others get everything', () => {
    const fanout = createFanout();
    const fast = member();
    const slow = member({ unsent: MAX_UNSENT_BYTES + 1 });
    const closing = member({ open: false });
    for (const x of [fast, slow, closing]) fanout.join(x.m, {});
    fanout.publish([event('1-0', 1)]);
    expect(fast.writes).toHaveLength(1);
    expect(slow.writes).toHaveLength(0);
    expect(slow.slow()).toBe(1);
    expect(closing.writes).toHaveLength(0);
  });

  it('moves a member between classes on a new subscription and forgets it on leave', () => {
    const fanout = createFanout();
    const a = member();
    fanout.join(a.m, { chainIds: new Set([1]) });
    fanout.join(a.m, { chainIds: new Set([56]) });
    expect(fanout.classCount()).toBe(1);
    fanout.publish([event('1-0', 1), event('2-0', 56)]);
    expect(payloads(a.writes[0]!).map((p) => (JSON.parse(p) as EventMessage).id)).toEqual(['2-0']);
    fanout.leave(a.m);
    expect(fanout.memberCount()).toBe(0);
    expect(fanout.classCount()).toBe(0);
  });

  it('keeps stream order per member across batches, and a member dropped as slow mid-batch gets nothing more', () => {
    const fanout = createFanout();
    const first = member();
    const laggard = { ...member(), unsent: 0 };
    const lagging: FanoutMember = {
      ...laggard.m,
      wire: {
        write: laggard.m.wire.write,
        get writableLength() {
          return laggard.unsent;
        },
      },
      // What the broadcaster does with a slow member: it leaves the fan-out (api/ws/registry.ts).
      onSlow: () => fanout.leave(lagging),
    };
    const last = member();
    fanout.join(first.m, {});
    fanout.join(lagging, {});
    fanout.join(last.m, {});
    const ids = (writes: Buffer[]) =>
      writes.flatMap((w) => payloads(w)).map((p) => (JSON.parse(p) as EventMessage).id);
    fanout.publish([event('1-0', 1), event('1-1', 1)]);
    laggard.unsent = MAX_UNSENT_BYTES + 1;
    fanout.publish([event('2-0', 1)]);
    laggard.unsent = 0;
    fanout.publish([event('3-0', 1), event('3-1', 1), event('3-2', 1)]);
    for (const kept of [first, last]) {
      expect(kept.writes).toHaveLength(3);
      expect(ids(kept.writes)).toEqual(['1-0', '1-1', '2-0', '3-0', '3-1', '3-2']);
    }
    expect(ids(laggard.writes)).toEqual(['1-0', '1-1']);
    expect(fanout.memberCount()).toBe(2);
  });
});
