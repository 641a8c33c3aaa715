import { describe, expect, it } from 'vitest';
import {
  DAY_MS,
  daysToRollUp,
  isExpired,
  parsePartition,
  partitionFor,
  wantedPartitions,
} from './retention.ts';

const at = (iso: string) => new Date(iso);

describe('history retention plan', () => {
  it('names daily and monthly partitions and reads the names back', () => {
    const raw = partitionFor('token_history', at('2026-11-24T13:05:00Z'));
    expect(raw).toEqual({
      table: 'token_history',
      name: 'token_history_p20261124',
      from: at('2026-11-24T00:00:00Z'),
      to: at('2026-11-25T00:00:00Z'),
    });
    const hourly = partitionFor('token_history_1h', at('2026-12-31T23:59:00Z'));
    expect(hourly.name).toBe('token_history_1h_p202612');
    expect(hourly.to).toEqual(at('2027-01-01T00:00:00Z'));
    expect(parsePartition('token_history', raw.name)).toEqual(raw);
    expect(parsePartition('token_history_1h', hourly.name)).toEqual(hourly);
    expect(parsePartition('token_history', 'token_history_default')).toBeUndefined();
    expect(parsePartition('token_history', 'token_history_5m_p20261124')).toBeUndefined();
  });

  it('wants yesterday to three days ahead for raw, a week back for 5 min, the month around for 1 h', () => {
    const names = wantedPartitions(at('2026-11-30T10:00:00Z')).map((p) => p.name);
    expect(names.filter((n) => n.startsWith('token_history_p'))).toEqual([
      'token_history_p20261129',
      'token_history_p20261130',
      'token_history_p20261201',
      'token_history_p20261202',
      'token_history_p20261203',
    ]);
    expect(names.filter((n) => n.startsWith('token_history_5m_p'))).toHaveLength(11);
    expect(names.filter((n) => n.startsWith('token_history_1h_p'))).toEqual([
      'token_history_1h_p202611',
      'token_history_1h_p202612',
    ]);
  });

  it('drops a raw day only once it is older than 24 h and rolled up', () => {
    const now = at('2026-11-24T10:00:00Z');
    const dayBefore = partitionFor('token_history', at('2026-11-22T12:00:00Z'));
    const yesterday = partitionFor('token_history', at('2026-11-23T12:00:00Z'));
    expect(isExpired(dayBefore, now, at('2026-11-24T00:00:00Z'))).toBe(true);
    expect(isExpired(dayBefore, now, at('2026-11-22T00:00:00Z'))).toBe(false);
    expect(isExpired(yesterday, now, at('2026-11-24T00:00:00Z'))).toBe(false);
    const old5m = partitionFor('token_history_5m', new Date(now.getTime() - 8 * DAY_MS));
    expect(isExpired(old5m, now, undefined)).toBe(true);
    expect(
      isExpired(
        partitionFor('token_history_5m', new Date(now.getTime() - 6 * DAY_MS)),
        now,
        undefined,
      ),
    ).toBe(false);
  });

  it('rolls up every whole day that has ended, and no partial day', () => {
    expect(daysToRollUp(at('2026-11-21T00:00:00Z'), at('2026-11-24T10:00:00Z'))).toEqual([
      at('2026-11-21T00:00:00Z'),
      at('2026-11-22T00:00:00Z'),
      at('2026-11-23T00:00:00Z'),
    ]);
    expect(daysToRollUp(at('2026-11-24T00:00:00Z'), at('2026-11-24T23:59:59Z'))).toEqual([]);
  });
});
