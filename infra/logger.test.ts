import { Writable } from 'node:stream';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { maskUrl } from '../src/config/redact.ts';
import { loggerOptions } from './logger.ts';

/** What a real pino logger with our options writes, for secrets in every place they can hide. */

function capture() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  return { logger: pino(loggerOptions('debug', 'test'), stream), text: () => lines.join('') };
}

const API_KEY = `svc_pro_${'ab12'.repeat(16)}`;
const API_SECRET = `svc_secret_${'cd34'.repeat(16)}`;
const JWT =
  'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiI0MiIsImV4cCI6OTk5OTk5OTk5OX0.c2lnbmF0dXJlLW9mLXRoZS10b2tlbg';
const RPC = 'https://mainnet.infura.io/v3/0123456789abcdef0123456789abcdef';

describe('log redaction', () => {
  it('hides API keys, secrets, JWTs, passwords and RPC URL paths in fields, nested objects, errors and messages', () => {
    const { logger, text } = capture();
    logger.info(
      {
        apiKey: API_KEY,
        user: { password: 'hunter2-password', profile: { note: `key ${API_KEY}` } },
      },
      'created',
    );
    logger.warn({ headers: { authorization: `Bearer ${JWT}`, 'x-api-key': API_KEY } }, 'request');
    logger.error({ err: new Error(`fetch ${RPC} failed for ${API_SECRET}`) }, 'rpc failed');
    logger.info(`signed in with ${JWT} against ${RPC}?apikey=xyz`);
    logger.debug(
      { list: [{ jwt_secret: 'a'.repeat(40) }, `redis://:redis-pass@cache.internal:6379/0`] },
      'nested',
    );
    const out = text();
    for (const secret of [
      API_KEY,
      API_SECRET,
      JWT,
      'hunter2-password',
      '0123456789abcdef0123456789abcdef',
      'xyz',
      'redis-pass',
      'a'.repeat(40),
    ]) {
      expect(out).not.toContain(secret);
    }
    // What stays readable: the host of a URL, the messages, the shape of the line.
    expect(out).toContain('https://mainnet.infura.io/***');
    expect(out).toContain('redis://cache.internal:6379/***');
    expect(
      out
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line).msg),
    ).toEqual([
      'created',
      'request',
      'rpc failed',
      expect.stringContaining('signed in with [redacted]'),
      'nested',
    ]);
  });

  it('keeps what is not secret: token addresses, chain and block fields', () => {
    const { logger, text } = capture();
    logger.info({ chain: 56, block: 123, token: `0x${'aa'.repeat(20)}` }, 'detected');
    expect(JSON.parse(text())).toMatchObject({
      chain: 56,
      block: 123,
      token: `0x${'aa'.repeat(20)}`,
      msg: 'detected',
    });
  });
});

describe('maskUrl', () => {
  it('keeps scheme, host and port; hides path, query and user info', () => {
    expect(maskUrl('https://bsc-dataseed.binance.org/')).toBe('https://bsc-dataseed.binance.org');
    expect(maskUrl('http://127.0.0.1:8545')).toBe('http://127.0.0.1:8545');
    expect(maskUrl(RPC)).toBe('https://mainnet.infura.io/***');
    expect(maskUrl('https://rpc.example?key=1')).toBe('https://rpc.example/***');
    expect(maskUrl('wss://user:pw@node.example:8546')).toBe('wss://node.example:8546/***');
    expect(maskUrl('not a url')).toBe('[redacted]');
  });
});
