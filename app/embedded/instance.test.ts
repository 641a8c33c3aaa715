import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_REDIS_PREFIX, instanceId, redisNamespace } from './instance.ts';

/** Two data directories never share a Redis namespace; one keeps its own across restarts. */

const root = mkdtempSync(join(tmpdir(), 'token-monitor-instance-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('instance id and Redis namespace', () => {
  it('gives each data directory a namespace of its own, the same on every start', () => {
    const a = mkdtempSync(join(root, 'a-'));
    const b = mkdtempSync(join(root, 'b-'));
    const first = redisNamespace({ DATA_DIR: a });
    expect(first.prefix).toBe(`${DEFAULT_REDIS_PREFIX}-${instanceId(a)}`);
    expect(first.prefix).toMatch(/^tm-[0-9a-f]{16}$/);
    expect(redisNamespace({ DATA_DIR: a }).prefix).toBe(first.prefix);
    expect(redisNamespace({ DATA_DIR: b }).prefix).not.toBe(first.prefix);
  });

  it('leaves a configured deployment its REDIS_PREFIX, default tm', () => {
    const dir = mkdtempSync(join(root, 'configured-'));
    expect(redisNamespace({ DATA_DIR: dir, REDIS_PREFIX: 'staging' }).prefix).toBe('staging');
    expect(redisNamespace({ DATA_DIR: dir, DATABASE_URL: 'postgres://db/x' }).prefix).toBe('tm');
  });

  it('refuses a damaged instance id instead of silently starting an empty namespace', () => {
    const dir = mkdtempSync(join(root, 'damaged-'));
    writeFileSync(join(dir, 'instance-id'), 'nonsense\n');
    expect(() => instanceId(dir)).toThrow(/holds no instance id/);
  });
});
