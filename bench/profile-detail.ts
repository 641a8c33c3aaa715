import { AsyncLocalStorage } from 'node:async_hooks';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { createApp } from '../api/app.ts';
import { createDb } from '../db/client.ts';
import { createAccountRepository } from '../db/repositories/accounts.ts';
import { createCreatorRepository } from '../db/repositories/creators.ts';
import { createTokenRepository } from '../db/repositories/tokens.ts';
import { silentLogger } from '../infra/logger.ts';
import { createRedis } from '../infra/redis.ts';
import { createProAccount, RAISED_LIMITS } from '../test/support/accounts.ts';
import { activeIndex, scaleAddress, scaleChain } from './suites/scale-seed.ts';

/**
 * Development aid, not a benchmark: one uncached PRO detail request at a time against the seeded
 * database `--reuse` keeps, with every Redis command, repository call and large JSON.stringify
 * timed on the request's own timeline (the API in this process). Prints the per-step p50/p99.
 * `tsx bench/profile-detail.ts <database url> [requests]`.
 */

type Span = { name: string; start: number; end: number };
const als = new AsyncLocalStorage<Span[]>();
const spanOf = async <T>(name: string, run: () => Promise<T>): Promise<T> => {
  const spans = als.getStore();
  const start = performance.now();
  try {
    return await run();
  } finally {
    spans?.push({ name, start, end: performance.now() });
  }
};

const [databaseUrl, count = '300'] = process.argv.slice(2) as [string, string?];
const handle = createDb(databaseUrl, { max: 10 });
const redis = createRedis('redis://127.0.0.1:6379', 'commands');
const prefix = `tmprof-${process.pid}`;
const originalSend = redis.sendCommand.bind(redis);
redis.sendCommand = ((command: { name: string }, ...rest: unknown[]) => {
  const spans = als.getStore();
  const start = performance.now();
  const result = (originalSend as (...a: unknown[]) => Promise<unknown>)(command, ...rest);
  if (spans)
    void Promise.resolve(result)
      .catch(() => undefined)
      .then(() => spans.push({ name: `redis ${command.name}`, start, end: performance.now() }));
  return result;
}) as typeof redis.sendCommand;
const tokens = createTokenRepository(handle.db);
const timedTokens = new Proxy(tokens, {
  get(target, property, receiver) {
    const value = Reflect.get(target, property, receiver);
    if (typeof value !== 'function') return value;
    return (...args: unknown[]) =>
      spanOf(`db ${String(property)}`, () => value.apply(target, args) as Promise<unknown>);
  },
});
const stringify = JSON.stringify;
JSON.stringify = ((...args: Parameters<typeof JSON.stringify>) => {
  const start = performance.now();
  const out = stringify(...args);
  if (out && out.length > 5_000)
    als.getStore()?.push({ name: 'JSON.stringify >5KB', start, end: performance.now() });
  return out;
}) as typeof JSON.stringify;

const accounts = createAccountRepository(handle.db);
const key = await createProAccount(accounts, {
  email: `profile-${prefix}@bench.test`,
  limits: RAISED_LIMITS,
});
const inner = createApp({
  tokens: timedTokens,
  accounts,
  creators: createCreatorRepository(handle.db),
  knownChainIds: new Set([1, 56, 137, 42161, 8453]),
  readiness: [],
  logger: silentLogger,
  redis,
  redisPrefix: prefix,
  jwt: { secret: 'bench-secret-bench-secret-bench-secret-0123' },
  submit: (async () => {
    throw new Error('no submit');
  }) as never,
  web: false,
});
const outer = express();
const timelines: { spans: Span[]; start: number; finish: number; total: number }[] = [];
outer.use((_req, res, next) => {
  const spans: Span[] = [];
  const start = performance.now();
  res.on('finish', () => {
    timelines.push({ spans, start, finish: performance.now(), total: 0 });
  });
  als.run(spans, () => next());
});
outer.use(inner);
const server = outer.listen(0, '127.0.0.1');
await new Promise((r) => server.once('listening', r));
const port = (server.address() as AddressInfo).port;

const shape = { tokens: 1_000_000, activeTokens: 10_000, creators: 200_000 };
const n = Number(count);
const totals: number[] = [];
for (let k = 0; k < n + 20; k++) {
  const i = activeIndex(shape, (k * 37 + 5_000) % shape.activeTokens);
  const started = performance.now();
  const response = await fetch(
    `http://127.0.0.1:${port}/api/pro/tokens/${scaleAddress(i)}?chain_id=${scaleChain(i)}&include_history=true`,
    { headers: { 'x-api-key': key.apiKey } },
  );
  await response.text();
  if (!response.ok) throw new Error(String(response.status));
  if (k >= 20) {
    totals.push(performance.now() - started);
    timelines.at(-1)!.total = performance.now() - started;
  } else timelines.pop();
}

const pct = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
};
const byName = new Map<string, { durations: number[]; ends: number[] }>();
for (const t of timelines) {
  for (const s of t.spans) {
    const entry = byName.get(s.name) ?? { durations: [], ends: [] };
    entry.durations.push(s.end - s.start);
    entry.ends.push(s.end - t.start);
    byName.set(s.name, entry);
  }
  const e = byName.get('server: start..finish') ?? { durations: [], ends: [] };
  e.durations.push(t.finish - t.start);
  byName.set('server: start..finish', e);
  const c = byName.get('client total') ?? { durations: [], ends: [] };
  c.durations.push(t.total);
  byName.set('client total', c);
}
const f = (x: number) => x.toFixed(2).padStart(7);
console.log('step                          count   p50     p90     p99   | ends at p50');
for (const [name, { durations, ends }] of byName)
  console.log(
    `${name.padEnd(30)}${String(durations.length).padStart(5)} ${f(pct(durations, 50))} ${f(pct(durations, 90))} ${f(pct(durations, 99))} | ${ends.length ? f(pct(ends, 50)) : ''}`,
  );
// The slowest requests' timelines, to see where a p99 goes.
for (const t of [...timelines].sort((a, b) => b.total - a.total).slice(0, 3)) {
  console.log(`-- slow request: total ${t.total.toFixed(2)} ms`);
  for (const s of t.spans.sort((a, b) => a.start - b.start))
    console.log(`   ${f(s.start - t.start)} .. ${f(s.end - t.start)}  ${s.name}`);
  console.log(`   finish at ${f(t.finish - t.start)}`);
}
server.close();
redis.disconnect();
await handle.close();
process.exit(0);
