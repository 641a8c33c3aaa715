import proxyaddr from 'proxy-addr';
import { z } from 'zod';
import {
  BILLING_PERIODS,
  type BillingConfig,
  PAID_PLANS,
  type PriceIds,
  priceVariable,
} from '../billing/index.ts';
import {
  ANNOUNCED_HIDDEN_CHAINS,
  BUILT_IN_CHAINS,
  builtInChain,
  type ChainConfig,
  chainFromBuiltIn,
  chainFromFileEntry,
  chainsFileSchema,
} from './chains.ts';

/** The process environment (docs/configuration.md), validated once at start-up. */

const RPC_URL_VARIABLE = /^RPC_URL_(\d+)$/;
const EXPLORER_URL_VARIABLE = /^EXPLORER_API_URL_(\d+)$/;
const WS_URL_VARIABLE = /^WS_URL_(\d+)$/;
const MIN_JWT_SECRET_LENGTH = 32;
const MIN_METRICS_TOKEN_LENGTH = 16;

/** TRUST_PROXY: "true", "false", a hop count, or addresses / subnets / loopback, linklocal, uniquelocal. */
function validTrustProxy(value: string): boolean {
  if (/^(true|false|\d+)$/.test(value.trim())) return true;
  try {
    proxyaddr.compile(
      value
        .split(',')
        .map((part) => part.trim())
        .filter(Boolean),
    );
    return true;
  } catch {
    return false;
  }
}

const envSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL')
    .optional(),
  REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\//, 'must be a redis:// URL')
    .optional(),
  /**
   * Namespace for every Redis key (queues, leases, streams): lets several deployments share one
   * Redis. Unset: the data directory's own on the embedded default, else `tm` (app/embedded/instance.ts).
   */
  // A whole-prefix hash tag ({tm}) keeps every key in one Redis Cluster slot, as BullMQ requires.
  REDIS_PREFIX: z
    .string()
    .regex(
      /^([A-Za-z0-9_.-]{1,40}|\{[A-Za-z0-9_.-]{1,40}\})$/,
      'letters, digits, _ . - only, optionally in braces ({tm})',
    )
    .optional(),
  CHAINS_FILE: z.string().min(1).optional(),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().default('0.0.0.0'),
  JWT_SECRET: z
    .string()
    .min(MIN_JWT_SECRET_LENGTH, `must be at least ${MIN_JWT_SECRET_LENGTH} characters`)
    .optional(),
  ADMIN_USER: z.string().min(1).optional(),
  ADMIN_PASSWORD: z.string().min(8, 'must be at least 8 characters').optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  DATA_DIR: z.string().min(1).default('.data'),
  /** Seconds between demo token launches on the embedded chain. */
  DEMO_INTERVAL_SECONDS: z.coerce.number().min(1).default(8),
  /** Block time of the embedded Anvil chain, in seconds. */
  DEV_BLOCK_TIME_SECONDS: z.coerce.number().int().min(1).default(1),
  /**
   * Base URL of a DexScreener-compatible API (e.g. https://api.dexscreener.com). Unset: no
   * aggregator; price and volume come from chain state only.
   */
  DEXSCREENER_URL: z.url().optional(),
  /** Requests per minute allowed to the aggregator (DexScreener's published limit is 300). */
  DEXSCREENER_RPM: z.coerce.number().int().min(1).max(10_000).default(300),
  /** A token with no trade for this long moves from the 60 s refresh to the slow cadence. */
  DEX_IDLE_AFTER_MINUTES: z.coerce.number().int().min(1).default(360),
  /** SMTP server for alert emails (smtp://user:pass@host:port or smtps://…). Unset: alerts are recorded, no email is sent. */
  SMTP_URL: z
    .string()
    .regex(/^smtps?:\/\//, 'must be an smtp:// or smtps:// URL')
    .optional(),
  /**
   * Express's `trust proxy`: which hops may set X-Forwarded-For (docs/security.md). Unset: none,
   * the client address is the socket's, and nothing can spoof it.
   */
  TRUST_PROXY: z
    .string()
    .refine(
      validTrustProxy,
      'true, false, a hop count, or addresses/subnets (or loopback, linklocal, uniquelocal)',
    )
    .optional(),
  /** Bearer token that /metrics then requires; unset: /metrics is open. */
  METRICS_TOKEN: z
    .string()
    .min(MIN_METRICS_TOKEN_LENGTH, `must be at least ${MIN_METRICS_TOKEN_LENGTH} characters`)
    .optional(),
  /**
   * The queues a worker process takes (comma-separated, e.g. `detect,replay`); unset: all. Lets
   * detection run in a process of its own, beside analysis workers (docs/operations.md).
   */
  WORKER_QUEUES: z
    .string()
    .regex(/^[a-z]+(,[a-z]+)*$/, 'comma-separated queue names, e.g. detect,replay')
    .transform((v) => v.split(','))
    .optional(),
  /**
   * Threads that run the static analysis off the event loop detection needs (infra/analysis-threads/);
   * unset or 0: on the event loop.
   */
  ANALYSIS_THREADS: z.coerce.number().int().min(0).max(64).optional(),
  /** Sender address of alert emails. */
  ALERT_EMAIL_FROM: z.string().min(3).default('alerts@token-monitor.local'),
  /** Billing through Stripe (docs/operations.md): all of the STRIPE_ variables, or none. */
  STRIPE_SECRET_KEY: z
    .string()
    .regex(
      /^(sk|rk)_(test|live)_[A-Za-z0-9_]{8,}$/,
      'must be a Stripe secret key (sk_live_… or sk_test_…)',
    )
    .optional(),
  STRIPE_WEBHOOK_SECRET: z
    .string()
    .regex(/^whsec_[A-Za-z0-9+/=_]{8,}$/, 'must be a Stripe webhook signing secret (whsec_…)')
    .optional(),
  ...(Object.fromEntries(
    PAID_PLANS.flatMap((plan) =>
      BILLING_PERIODS.map((period) => [
        priceVariable(plan, period),
        z
          .string()
          .regex(/^price_[A-Za-z0-9_]{1,200}$/, 'must be a Stripe price id (price_…)')
          .optional(),
      ]),
    ),
  ) as Record<
    `STRIPE_PRICE_${'BASIC' | 'PRO'}_${'MONTHLY' | 'ANNUAL'}`,
    z.ZodOptional<z.ZodString>
  >),
  /** Another address for Stripe's API (stripe-mock, a test server); unset: Stripe's own. */
  STRIPE_API_URL: z.url({ protocol: /^https?$/ }).optional(),
  /** The web app's address as its users reach it: where Checkout and the billing portal send them back. */
  PUBLIC_URL: z.url({ protocol: /^https?$/ }).optional(),
});

export type Env = z.infer<typeof envSchema>;

export interface AppConfig {
  env: Env;
  /** Billing through Stripe; absent: not configured (plans change only by the operator). */
  billing?: BillingConfig;
  /** Chains with an RPC endpoint: the ones scanned. Empty means "start the embedded dev chain". */
  chains: ChainConfig[];
  /** Every chain id the API accepts: configured ones plus the built-in ones (even without RPC). */
  knownChainIds: ReadonlySet<number>;
}

export type ConfigResult = { ok: true; config: AppConfig } | { ok: false; errors: string[] };

export type ReadFile = (path: string) => string;

export function parseConfig(
  raw: Record<string, string | undefined>,
  readFile: ReadFile,
): ConfigResult {
  // An empty variable (FOO= in a compose file) means "not set", not "set to nothing".
  const present = Object.fromEntries(
    Object.entries(raw).filter(([, value]) => value !== undefined && value !== ''),
  );
  const parsed = envSchema.safeParse(present);
  if (!parsed.success)
    return {
      ok: false,
      errors: parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`),
    };
  const env = parsed.data;
  const errors: string[] = [];
  if (env.NODE_ENV === 'production' && !env.JWT_SECRET)
    errors.push('JWT_SECRET: required when NODE_ENV=production');
  const billing = billingConfig(env, errors);

  const byId = new Map<number, ChainConfig>();
  if (env.CHAINS_FILE) {
    const file = readChainsFile(env.CHAINS_FILE, readFile);
    if (!file.ok) errors.push(...file.errors);
    else for (const chain of file.chains) byId.set(chain.chainId, chain);
  }

  const rpcUrls = collectUrlVariables(raw, RPC_URL_VARIABLE, errors);
  const wsUrls = collectUrlVariables(raw, WS_URL_VARIABLE, errors);
  for (const [chainId, url] of rpcUrls) {
    const existing = byId.get(chainId);
    if (existing) {
      existing.rpcUrls = [url, ...existing.rpcUrls.filter((u) => u !== url)];
      continue;
    }
    const builtIn = builtInChain(chainId);
    if (!builtIn) {
      errors.push(
        `RPC_URL_${chainId}: chain ${chainId} has no built-in defaults; describe it in CHAINS_FILE`,
      );
      continue;
    }
    byId.set(chainId, chainFromBuiltIn(builtIn, [url], wsUrls.get(chainId)));
  }
  for (const [chainId, url] of wsUrls) {
    const chain = byId.get(chainId);
    if (chain) chain.wsUrl = url;
  }
  for (const [chainId, url] of collectUrlVariables(raw, EXPLORER_URL_VARIABLE, errors)) {
    const chain = byId.get(chainId);
    if (chain) chain.explorerApiUrl = url;
    else errors.push(`EXPLORER_API_URL_${chainId}: chain ${chainId} is not configured`);
  }
  for (const hidden of ANNOUNCED_HIDDEN_CHAINS) {
    if (byId.has(hidden.chainId))
      errors.push(`chain ${hidden.chainId} (${hidden.name}) is announced but not supported yet`);
  }
  if (errors.length > 0) return { ok: false, errors };

  const chains = [...byId.values()].sort((a, b) => a.chainId - b.chainId);
  return {
    ok: true,
    config: { env, chains, knownChainIds: knownIds(chains), ...(billing ? { billing } : {}) },
  };
}

/** All of the STRIPE_ variables or none: a half-configured billing is refused, naming what is missing. */
function billingConfig(env: Env, errors: string[]): BillingConfig | undefined {
  const priceVariables = PAID_PLANS.flatMap((plan) =>
    BILLING_PERIODS.map((period) => priceVariable(plan, period) as keyof Env),
  );
  const required = ['STRIPE_SECRET_KEY', 'STRIPE_WEBHOOK_SECRET', ...priceVariables] as const;
  const missing = required.filter((name) => !env[name]);
  if (missing.length === required.length) {
    if (env.STRIPE_API_URL)
      errors.push('STRIPE_API_URL: set without STRIPE_SECRET_KEY and the rest');
    return undefined;
  }
  if (missing.length > 0) {
    errors.push(
      ...missing.map(
        (name) => `${name}: required for billing (the other STRIPE_ variables are set)`,
      ),
    );
    return undefined;
  }
  const prices = Object.fromEntries(
    PAID_PLANS.map((plan) => [
      plan,
      Object.fromEntries(
        BILLING_PERIODS.map((period) => [
          period,
          String(env[priceVariable(plan, period) as keyof Env]),
        ]),
      ),
    ]),
  ) as PriceIds;
  const ids = priceVariables.map((name) => env[name]);
  const repeated = priceVariables.find((_, i) => ids.indexOf(ids[i]) !== i);
  if (repeated) {
    errors.push(`${repeated}: the same price as another plan or period; each needs its own`);
    return undefined;
  }
  return {
    secretKey: env.STRIPE_SECRET_KEY!,
    webhookSecret: env.STRIPE_WEBHOOK_SECRET!,
    prices,
    ...(env.STRIPE_API_URL ? { apiUrl: env.STRIPE_API_URL } : {}),
  };
}

export function knownIds(chains: readonly ChainConfig[]): ReadonlySet<number> {
  return new Set([...BUILT_IN_CHAINS.map((c) => c.chainId), ...chains.map((c) => c.chainId)]);
}

function readChainsFile(
  path: string,
  readFile: ReadFile,
): { ok: true; chains: ChainConfig[] } | { ok: false; errors: string[] } {
  let json: unknown;
  try {
    json = JSON.parse(readFile(path));
  } catch (error) {
    return {
      ok: false,
      errors: [`CHAINS_FILE: cannot read ${path} as JSON (${(error as Error).message})`],
    };
  }
  const parsed = chainsFileSchema.safeParse(json);
  if (!parsed.success) {
    return {
      ok: false,
      errors: parsed.error.issues.map(
        (i) => `CHAINS_FILE ${path}: ${i.path.join('.')}: ${i.message}`,
      ),
    };
  }
  const ids = parsed.data.chains.map((c) => c.chain_id);
  const duplicate = ids.find((id, i) => ids.indexOf(id) !== i);
  if (duplicate !== undefined)
    return { ok: false, errors: [`CHAINS_FILE ${path}: chain ${duplicate} is listed twice`] };
  return { ok: true, chains: parsed.data.chains.map(chainFromFileEntry) };
}

function collectUrlVariables(
  raw: Record<string, string | undefined>,
  pattern: RegExp,
  errors: string[],
): Map<number, string> {
  const urls = new Map<number, string>();
  for (const [name, value] of Object.entries(raw)) {
    const match = pattern.exec(name);
    if (!match || value === undefined || value === '') continue;
    if (!URL.canParse(value)) {
      errors.push(`${name}: not a URL`);
      continue;
    }
    urls.set(Number(match[1]), value);
  }
  return urls;
}
