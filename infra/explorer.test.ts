import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../src/config/env.ts';
import { verifiedSource } from './explorer.ts';

/** A local server speaking the Etherscan getsourcecode protocol, as the explorers of the built-in chains do. */

const VERIFIED = `0x${'11'.repeat(20)}`;
const UNVERIFIED = `0x${'22'.repeat(20)}`;
const RATE_LIMITED = `0x${'33'.repeat(20)}`;
const BROKEN = `0x${'44'.repeat(20)}`;
const requests: URLSearchParams[] = [];
let server: Server;
let url: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    const params = new URL(req.url!, 'http://x').searchParams;
    requests.push(params);
    const address = params.get('address');
    const send = (status: number, body: string) =>
      res.writeHead(status, { 'content-type': 'application/json' }).end(body);
    if (params.get('module') !== 'contract' || params.get('action') !== 'getsourcecode')
      return send(400, '{}');
    if (address === VERIFIED)
      return send(
        200,
        JSON.stringify({
          status: '1',
          message: 'OK',
          result: [
            { SourceCode: 'pragma solidity ^0.8.0; contract T {}', ABI: '[]', ContractName: 'T' },
          ],
        }),
      );
    if (address === UNVERIFIED)
      return send(
        200,
        JSON.stringify({
          status: '1',
          message: 'OK',
          result: [{ SourceCode: '', ABI: 'Contract source code not verified', ContractName: '' }],
        }),
      );
    if (address === RATE_LIMITED)
      return send(
        200,
        JSON.stringify({ status: '0', message: 'NOTOK', result: 'Max rate limit reached' }),
      );
    if (address === BROKEN) return send(502, 'bad gateway');
    return send(200, 'not json');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('verifiedSource', () => {
  it('true for verified source, false for an unverified contract, with the API key sent', async () => {
    expect(await verifiedSource({ url, apiKey: 'K1' }, VERIFIED)).toBe(true);
    expect(requests.at(-1)!.get('apikey')).toBe('K1');
    expect(await verifiedSource({ url }, UNVERIFIED)).toBe(false);
    expect(requests.at(-1)!.has('apikey')).toBe(false);
  });

  it('null (unknown, not "unverified") for rate limits, HTTP errors, garbage and no server', async () => {
    expect(await verifiedSource({ url }, RATE_LIMITED)).toBeNull();
    expect(await verifiedSource({ url }, BROKEN)).toBeNull();
    expect(await verifiedSource({ url }, `0x${'55'.repeat(20)}`)).toBeNull();
    expect(await verifiedSource({ url: 'http://127.0.0.1:1/api' }, VERIFIED)).toBeNull();
  });
});

describe('explorer configuration', () => {
  const chainsFile = JSON.stringify({
    chains: [
      {
        chain_id: 31337,
        name: 'Local',
        rpc_urls: ['http://127.0.0.1:8545'],
        wrapped_native: `0x${'aa'.repeat(20)}`,
        explorer_api_url: 'http://127.0.0.1:9/api',
        explorer_api_key: 'secret',
      },
    ],
  });

  it('per chain in CHAINS_FILE, or EXPLORER_API_URL_<chain_id> for a configured chain', () => {
    const fromFile = parseConfig({ CHAINS_FILE: 'chains.json' }, () => chainsFile);
    expect(fromFile.ok && fromFile.config.chains[0]).toMatchObject({
      explorerApiUrl: 'http://127.0.0.1:9/api',
      explorerApiKey: 'secret',
    });
    const fromEnv = parseConfig(
      { RPC_URL_1: 'http://127.0.0.1:8545', EXPLORER_API_URL_1: 'https://api.etherscan.io/api' },
      () => '',
    );
    expect(fromEnv.ok && fromEnv.config.chains.find((c) => c.chainId === 1)).toMatchObject({
      explorerApiUrl: 'https://api.etherscan.io/api',
    });
    const orphan = parseConfig({ EXPLORER_API_URL_1: 'https://api.etherscan.io/api' }, () => '');
    expect(orphan.ok ? [] : orphan.errors).toEqual([
      'EXPLORER_API_URL_1: chain 1 is not configured',
    ]);
    const bad = parseConfig(
      { RPC_URL_1: 'http://127.0.0.1:8545', EXPLORER_API_URL_1: 'not a url' },
      () => '',
    );
    expect(bad.ok ? [] : bad.errors).toEqual(['EXPLORER_API_URL_1: not a URL']);
  });
});
