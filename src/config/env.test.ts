import { describe, expect, it } from 'vitest';
import { parseConfig } from './env.ts';

const noFile = () => {
  throw new Error('ENOENT');
};

const CHAINS_FILE = JSON.stringify({
  chains: [
    {
      chain_id: 31337,
      name: 'Local',
      rpc_urls: ['http://127.0.0.1:8545'],
      confirmations: 0,
      start_block: 0,
      wrapped_native: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
      stablecoins: [],
      dexes: [
        {
          name: 'uniswap-v2',
          kind: 'v2',
          factory: '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512',
          router: '0x9fE46736679d2D9a65F0992F2272dE9f3c7fa6e0',
        },
      ],
    },
  ],
});

describe('parseConfig', () => {
  it('applies defaults and knows the built-in chains without RPC URLs', () => {
    const result = parseConfig({}, noFile);
    if (!result.ok) throw new Error(result.errors.join());
    expect(result.config.env.PORT).toBe(3000);
    expect(result.config.chains).toEqual([]);
    expect([...result.config.knownChainIds].sort((a, b) => a - b)).toEqual([
      1, 56, 137, 8453, 42161,
    ]);
  });

  it('accepts a hash-tagged REDIS_PREFIX for Redis Cluster, and refuses other braces', () => {
    const tagged = parseConfig({ REDIS_PREFIX: '{tm}' }, noFile);
    if (!tagged.ok) throw new Error(tagged.errors.join());
    expect(tagged.config.env.REDIS_PREFIX).toBe('{tm}');
    expect(parseConfig({ REDIS_PREFIX: '{tm' }, noFile).ok).toBe(false);
    expect(parseConfig({ REDIS_PREFIX: 'a{tm}' }, noFile).ok).toBe(false);
  });

  it('builds a built-in chain from RPC_URL_<id>', () => {
    const result = parseConfig({ RPC_URL_56: 'https://bsc.example/rpc' }, noFile);
    if (!result.ok) throw new Error(result.errors.join());
    const [bsc] = result.config.chains;
    expect(bsc?.chainId).toBe(56);
    expect(bsc?.rpcUrls).toEqual(['https://bsc.example/rpc']);
    expect(bsc?.dexes.map((d) => d.name)).toEqual([
      'pancakeswap-v2',
      'pancakeswap-v3',
      'uniswap-v4',
    ]);
    expect(bsc?.wrappedNative).toBe('0xbb4cdb9cbd36b01bd1cbaebf2de08d9173bc095c');
  });

  it('reads CHAINS_FILE and lower-cases its addresses', () => {
    const result = parseConfig({ CHAINS_FILE: '/x.json' }, () => CHAINS_FILE);
    if (!result.ok) throw new Error(result.errors.join());
    const [local] = result.config.chains;
    expect(local?.wrappedNative).toBe('0x5fbdb2315678afecb367f032d93f642f64180aa3');
    expect(local?.dexes[0]?.factory).toBe('0xe7f1725e7734ce288f8367e1bb143e90bb3f0512');
    expect(result.config.knownChainIds.has(31337)).toBe(true);
  });

  it('reports every problem with its variable name', () => {
    const result = parseConfig({ PORT: 'abc', REDIS_URL: 'http://x' }, noFile);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors.some((e) => e.startsWith('PORT'))).toBe(true);
    expect(result.errors.some((e) => e.startsWith('REDIS_URL'))).toBe(true);
  });

  it('refuses an RPC URL for a chain without defaults, and a malformed chains file', () => {
    const unknown = parseConfig({ RPC_URL_999: 'http://x' }, noFile);
    expect(unknown.ok ? [] : unknown.errors).toEqual([expect.stringContaining('RPC_URL_999')]);
    const bad = parseConfig({ CHAINS_FILE: '/x.json' }, () => '{"chains":[{"chain_id":1}]}');
    expect(bad.ok).toBe(false);
    const missing = parseConfig({ CHAINS_FILE: '/nope.json' }, noFile);
    expect(missing.ok ? [] : missing.errors).toEqual([
      expect.stringContaining('cannot read /nope.json'),
    ]);
  });

  it('reads WORKER_QUEUES as a list of names; unset is every queue; a malformed list is refused', () => {
    const set = parseConfig({ WORKER_QUEUES: 'detect,replay' }, noFile);
    if (!set.ok) throw new Error(set.errors.join());
    expect(set.config.env.WORKER_QUEUES).toEqual(['detect', 'replay']);
    const unset = parseConfig({}, noFile);
    if (!unset.ok) throw new Error(unset.errors.join());
    expect(unset.config.env.WORKER_QUEUES).toBeUndefined();
    const bad = parseConfig({ WORKER_QUEUES: 'detect, replay' }, noFile);
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.errors.join()).toContain('WORKER_QUEUES');
  });

  it('refuses the hidden Solana chain id like an unknown one', () => {
    const result = parseConfig({ RPC_URL_1399811149: 'http://x' }, noFile);
    expect(result.ok).toBe(false);
  });

  it('requires JWT_SECRET in production', () => {
    const result = parseConfig({ NODE_ENV: 'production' }, noFile);
    expect(result.ok ? [] : result.errors).toEqual([expect.stringContaining('JWT_SECRET')]);
  });
});

describe('billing configuration', () => {
  const STRIPE = {
    STRIPE_SECRET_KEY: 'sk_test_0123456789abcdef',
    STRIPE_WEBHOOK_SECRET: 'whsec_0123456789abcdef',
    STRIPE_PRICE_BASIC_MONTHLY: 'price_basic_m',
    STRIPE_PRICE_BASIC_ANNUAL: 'price_basic_a',
    STRIPE_PRICE_PRO_MONTHLY: 'price_pro_m',
    STRIPE_PRICE_PRO_ANNUAL: 'price_pro_a',
  };

  it('none of the STRIPE_ variables: billing is not configured', () => {
    const result = parseConfig({}, noFile);
    expect(result.ok && result.config.billing).toBeUndefined();
  });

  it('all of them: the secret, the webhook secret, one price per plan and period, and another API address', () => {
    const result = parseConfig({ ...STRIPE, STRIPE_API_URL: 'http://127.0.0.1:12111' }, noFile);
    if (!result.ok) throw new Error(result.errors.join());
    expect(result.config.billing).toEqual({
      secretKey: STRIPE.STRIPE_SECRET_KEY,
      webhookSecret: STRIPE.STRIPE_WEBHOOK_SECRET,
      prices: {
        BASIC: { monthly: 'price_basic_m', annual: 'price_basic_a' },
        PRO: { monthly: 'price_pro_m', annual: 'price_pro_a' },
      },
      apiUrl: 'http://127.0.0.1:12111',
    });
  });

  it('some of them: each missing one is named; malformed or repeated values are refused', () => {
    const { STRIPE_WEBHOOK_SECRET: _w, STRIPE_PRICE_PRO_ANNUAL: _p, ...partial } = STRIPE;
    expect(parseConfig(partial, noFile)).toEqual({
      ok: false,
      errors: [
        'STRIPE_WEBHOOK_SECRET: required for billing (the other STRIPE_ variables are set)',
        'STRIPE_PRICE_PRO_ANNUAL: required for billing (the other STRIPE_ variables are set)',
      ],
    });
    const bad = parseConfig(
      { ...STRIPE, STRIPE_SECRET_KEY: 'pk_test_123', STRIPE_PRICE_PRO_MONTHLY: 'prod_1' },
      noFile,
    );
    expect(bad.ok ? [] : bad.errors).toEqual([
      expect.stringMatching(/^STRIPE_SECRET_KEY: must be a Stripe secret key/),
      expect.stringMatching(/^STRIPE_PRICE_PRO_MONTHLY: must be a Stripe price id/),
    ]);
    const repeated = parseConfig({ ...STRIPE, STRIPE_PRICE_PRO_ANNUAL: 'price_pro_m' }, noFile);
    expect(repeated.ok ? [] : repeated.errors).toEqual([
      'STRIPE_PRICE_PRO_ANNUAL: the same price as another plan or period; each needs its own',
    ]);
    const orphan = parseConfig({ STRIPE_API_URL: 'http://127.0.0.1:1' }, noFile);
    expect(orphan.ok ? [] : orphan.errors).toEqual([
      'STRIPE_API_URL: set without STRIPE_SECRET_KEY and the rest',
    ]);
  });
});
