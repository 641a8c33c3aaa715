import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { parseTrustProxy } from '../api/access/index.ts';
import { runMigrations } from '../db/client.ts';
import { createLogger, type Logger } from '../infra/logger.ts';
import { type AppConfig, knownIds, parseConfig } from '../src/config/env.ts';
import { maskUrl } from '../src/config/redact.ts';
import { QUEUE_NAMES, type QueueName } from '../workers/jobs.ts';
import { analyzeCommand } from './commands/analyze.ts';
import { replayCommand } from './commands/replay.ts';
import { accountsCommand } from './commands/users.ts';
import {
  applyDemoKeyPolicy,
  DEMO_EMAIL,
  type DevChain,
  demoKeyAction,
  persistedSecret,
  type RedisNamespace,
  type Resolved,
  redisNamespace,
  resolveDatabase,
  resolveRedis,
  startDevChain,
} from './embedded/index.ts';
import { resolveJwtSecret } from './jwt-secret.ts';
import { keysCommand } from './operator.ts';
import { ROLES, type Role, startService } from './service.ts';
import { createShutdown } from './shutdown.ts';

/** `token-monitor <command>` (docs/operations.md). Prints JSON when stdout is not a terminal. */

const USAGE = `Usage: token-monitor <command> [options]

Commands:
  start [--role all|api|worker|scanner|scheduler]   run the service (default role: all)
  migrate                                           apply pending database migrations
  replay --chain-id N --from A --to B               detect the tokens of a historical block range
                                                    (resumable; stops at the finalized head)
  users create --email E --password P --plan free|basic|pro [--trial-days N]
                                                    create an account (a trial when --trial-days is given)
  users show --email E                              an account's plan state, Stripe customer and subscription
  users set-plan --email E --plan free|basic|pro [--trial-days N]
                                                    change an account's plan (Stripe's next event for a
                                                    billed account sets it again)
  users payment-failed --email E                    record a failed payment (downgrade after 3 days)
  keys set-limits --key K --per-minute N --per-hour N --per-day N
                                                    change an API key's rate limits (full or masked key)
  analyze --chain-id N --address A [--timeout-seconds S]
                                                    run one contract through the pipeline now and print it
`;
// PGlite is one backend session: interleaved extended-protocol messages from several connections
// clobber each other's unnamed statements, so the embedded pool uses a single (pipelined) connection.
const EMBEDDED_POOL_MAX = 1;
const DEMO_PASSWORD_LENGTH = 24;

function output(value: unknown, human: string) {
  if (process.stdout.isTTY) console.log(human);
  else console.log(JSON.stringify(value));
}

function fail(message: string, code = 1): never {
  console.error(message);
  process.exit(code);
}

function loadConfig(): AppConfig {
  const result = parseConfig(process.env, (path) => readFileSync(path, 'utf8'));
  if (!result.ok) fail(`Invalid configuration:\n  - ${result.errors.join('\n  - ')}`);
  return result.config;
}

async function migrateCommand(config: AppConfig, logger: Logger) {
  const database = await resolveDatabase(config.env.DATABASE_URL, config.env.DATA_DIR, logger);
  try {
    await runMigrations(database.url);
    output(
      { status: 'migrated', database: database.source },
      `Migrations applied (${database.source}).`,
    );
  } finally {
    await database.stop();
  }
}

/** Operators log in to Bull Board with ADMIN_USER/ADMIN_PASSWORD; the embedded default makes one up. */
function operatorLogin(config: AppConfig) {
  const generatedAdmin =
    !config.env.ADMIN_USER && config.env.NODE_ENV !== 'production'
      ? { user: 'admin', ...persistedSecret(config.env.DATA_DIR, 'admin-password') }
      : undefined;
  const admin =
    config.env.ADMIN_USER && config.env.ADMIN_PASSWORD
      ? { user: config.env.ADMIN_USER, password: config.env.ADMIN_PASSWORD }
      : generatedAdmin
        ? { user: generatedAdmin.user, password: generatedAdmin.value }
        : undefined;
  return { admin, generatedAdmin };
}

/**
 * The embedded default hands out a ready-made PRO key, so that every endpoint can be tried at
 * once; anything else revokes a leftover one (app/embedded/demo-key.ts). Done before the
 * service opens its pool: an embedded PGlite serves one connection at a time.
 */
async function prepareDemoAccess(
  config: AppConfig,
  logger: Logger,
  stack: {
    roles: Set<Role>;
    devChain?: DevChain;
    database: Resolved;
    redis: Resolved;
    redisPrefix: string;
  },
) {
  const { roles, devChain, database, redis } = stack;
  const action = demoKeyAction({
    databaseUrlConfigured: Boolean(config.env.DATABASE_URL),
    configuredChains: config.chains.length,
    nodeEnv: config.env.NODE_ENV,
  });
  // …and on the embedded default only, a web sign-in for the demo account with a password
  // generated once for DATA_DIR (DATA_DIR/demo-password holds it).
  const demoPassword =
    roles.has('api') && action === 'issue' && devChain
      ? persistedSecret(config.env.DATA_DIR, 'demo-password', DEMO_PASSWORD_LENGTH).value
      : undefined;
  const demoKey =
    roles.has('api') && (action === 'revoke' || devChain)
      ? await applyDemoKeyPolicy({
          action,
          databaseUrl: database.url,
          redisUrl: redis.url,
          redisPrefix: stack.redisPrefix,
          dataDir: config.env.DATA_DIR,
          logger,
          password: demoPassword,
        })
      : undefined;
  return { demoPassword, demoKey };
}

interface StartedStack {
  url: string | undefined;
  roles: Set<Role>;
  chains: AppConfig['chains'];
  database: Resolved;
  redis: Resolved;
  namespace: RedisNamespace;
  login: ReturnType<typeof operatorLogin>;
  demo: Awaited<ReturnType<typeof prepareDemoAccess>>;
}

/** What `start` prints as JSON: every address the running service answers on. */
function startedBanner(stack: StartedStack) {
  const { url, roles, chains, database, redis, namespace, login, demo } = stack;
  const wsUrl = url?.replace(/^http/, 'ws');
  return {
    status: 'started',
    web: url ? `${url}/` : null,
    demo_account: demo.demoPassword ? { email: DEMO_EMAIL, password: demo.demoPassword } : null,
    roles: [...roles],
    api: url ? `${url}/api` : null,
    websocket: wsUrl ? `${wsUrl}/ws` : null,
    health: url ? `${url}/health` : null,
    metrics: url ? `${url}/metrics` : null,
    bull_board: url ? `${url}/admin/queues` : null,
    operator_login: login.generatedAdmin
      ? `user admin, password in ${login.generatedAdmin.path}`
      : login.admin
        ? 'ADMIN_USER / ADMIN_PASSWORD'
        : 'not configured',
    docs: url ? `${url}/docs` : null,
    demo_api_key: demo.demoKey ?? null,
    database: database.source,
    redis: redis.source,
    redis_prefix: namespace.prefix,
    // Providers put API keys in the path or query of RPC URLs: only scheme and host are shown.
    chains: chains.map((c) => ({
      chain_id: c.chainId,
      name: c.name,
      rpc: maskUrl(c.rpcUrls[0] ?? ''),
    })),
  };
}

/** The same banner for a person at a terminal. */
function bannerText(banner: ReturnType<typeof startedBanner>, stack: StartedStack): string {
  const { demoPassword, demoKey } = stack.demo;
  return [
    '',
    'token-monitor is running',
    ...(stack.url ? [`  Web app:    ${banner.web}`] : []),
    ...(demoPassword ? [`    sign in as ${DEMO_EMAIL} with password ${demoPassword}`] : []),
    ...(stack.url
      ? [
          `  API:        ${banner.api}`,
          `  WebSocket:  ${banner.websocket}`,
          `  Health:     ${banner.health}`,
          `  Docs:       ${banner.docs}`,
          `  Metrics:    ${banner.metrics}`,
          `  Bull Board: ${banner.bull_board} (${banner.operator_login})`,
        ]
      : []),
    ...(demoKey
      ? [
          `  Demo PRO API key: ${demoKey}`,
          `    curl -H 'X-API-Key: ${demoKey}' ${banner.api}/pro/tokens`,
        ]
      : []),
    `  Database:   ${banner.database}`,
    `  Redis:      ${banner.redis}, key prefix ${banner.redis_prefix}`,
    ...stack.chains.map(
      (c) => `  Chain:      ${c.chainId} ${c.name} (${maskUrl(c.rpcUrls[0] ?? '')})`,
    ),
    '  Ctrl-C stops everything this process started.',
    '',
  ].join('\n');
}

/** With no chain configured, the embedded development chain gives every feature live data. */
async function startDevChainIfNeeded(config: AppConfig, logger: Logger, roles: Set<Role>) {
  if (config.chains.length > 0 || !(roles.has('scanner') || roles.has('worker'))) return undefined;
  return startDevChain({
    blockTimeSeconds: config.env.DEV_BLOCK_TIME_SECONDS,
    demoIntervalMs: config.env.DEMO_INTERVAL_SECONDS * 1000,
    logger,
  });
}

/** WORKER_QUEUES, checked against the job catalog. */
function workerQueues(names: string[] | undefined): QueueName[] | undefined {
  if (!names) return undefined;
  const unknown = names.filter((n) => !(QUEUE_NAMES as readonly string[]).includes(n));
  if (unknown.length > 0)
    fail(`WORKER_QUEUES: unknown queue ${unknown.join(', ')} (queues: ${QUEUE_NAMES.join(', ')})`);
  return names as QueueName[];
}

async function startCommand(config: AppConfig, logger: Logger, roleArg: string) {
  if (roleArg !== 'all' && !(ROLES as readonly string[]).includes(roleArg))
    fail(`--role must be one of all, ${ROLES.join(', ')}`);
  const roles = new Set<Role>(roleArg === 'all' ? ROLES : [roleArg as Role]);
  const shutdown = createShutdown(logger);
  shutdown.listen();

  try {
    const database: Resolved = await resolveDatabase(
      config.env.DATABASE_URL,
      config.env.DATA_DIR,
      logger,
    );
    shutdown.onStop(database.stop);
    const redis: Resolved = await resolveRedis(config.env.REDIS_URL, config.env.DATA_DIR, logger);
    shutdown.onStop(redis.stop);
    const namespace = redisNamespace(config.env);
    await runMigrations(database.url);
    const jwt = roles.has('api')
      ? resolveJwtSecret(config.env.JWT_SECRET, config.env.DATA_DIR)
      : undefined;

    const devChain = await startDevChainIfNeeded(config, logger, roles);
    if (devChain) shutdown.onStop(devChain.stop);
    const chains = devChain ? [devChain.chain] : config.chains;
    const login = operatorLogin(config);
    const demo = await prepareDemoAccess(config, logger, {
      roles,
      devChain,
      database,
      redis,
      redisPrefix: namespace.prefix,
    });
    const service = await startService({
      admin: login.admin,
      roles,
      trustProxy: parseTrustProxy(config.env.TRUST_PROXY),
      metricsToken: config.env.METRICS_TOKEN,
      workerQueues: workerQueues(config.env.WORKER_QUEUES),
      analysisThreads: config.env.ANALYSIS_THREADS,
      databaseUrl: database.url,
      redisUrl: redis.url,
      redisPrefix: namespace.prefix,
      chains,
      knownChainIds: knownIds(chains),
      port: config.env.PORT,
      host: config.env.HOST,
      logger,
      jwtSecret: jwt?.secret,
      smtpUrl: config.env.SMTP_URL,
      alertEmailFrom: config.env.ALERT_EMAIL_FROM,
      billing: config.billing,
      publicUrl: config.env.PUBLIC_URL,
      poolMax: config.env.DATABASE_URL ? undefined : EMBEDDED_POOL_MAX,
      dex: {
        idleAfterMs: config.env.DEX_IDLE_AFTER_MINUTES * 60_000,
        aggregatorUrl: config.env.DEXSCREENER_URL,
        aggregatorRequestsPerMinute: config.env.DEXSCREENER_RPM,
      },
    });
    shutdown.onStop(service.stop);
    if (shutdown.stopping()) return;
    // A second start on this DATA_DIR names the URL of this one.
    if (service.url) (database.lock ?? redis.lock)?.announce(service.url);

    const stack: StartedStack = {
      url: service.url,
      roles,
      chains,
      database,
      redis,
      namespace,
      login,
      demo,
    };
    const banner = startedBanner(stack);
    output(banner, bannerText(banner, stack));
  } catch (error) {
    logger.error({ err: (error as Error).message }, 'start failed');
    await shutdown.stopAll();
    fail((error as Error).message);
  }
}

async function main() {
  const [command, ...rest] = process.argv.slice(2);
  if (!command || command === 'help' || command === '--help') {
    console.log(USAGE);
    return;
  }
  const config = loadConfig();
  // Only `start` logs to stdout; the other commands print their result there.
  const logger = createLogger(config.env.LOG_LEVEL, undefined, command !== 'start');
  switch (command) {
    case 'start': {
      const { values } = parseArgs({
        args: rest,
        options: { role: { type: 'string', default: 'all' } },
        strict: true,
      });
      await startCommand(config, logger, values.role ?? 'all');
      return;
    }
    case 'migrate':
      await migrateCommand(config, logger);
      return;
    case 'replay': {
      const { values } = parseArgs({
        args: rest,
        options: {
          'chain-id': { type: 'string' },
          from: { type: 'string' },
          to: { type: 'string' },
        },
        strict: true,
      });
      const numbers = [values['chain-id'], values.from, values.to].map((v) =>
        v !== undefined && /^\d+$/.test(v) ? Number(v) : Number.NaN,
      );
      if (numbers.some(Number.isNaN))
        fail('replay needs --chain-id N --from A --to B (non-negative integers)', 2);
      const [chainId, from, to] = numbers as [number, number, number];
      process.exitCode = await replayCommand(config, logger, { chainId, from, to });
      return;
    }
    case 'users':
      await accountsCommand(config, logger, rest, { output, fail });
      return;
    case 'keys':
      await keysCommand(config, logger, rest, { output, fail });
      return;
    case 'analyze':
      await analyzeCommand(config, logger, rest, {
        output,
        fail,
        poolMax: config.env.DATABASE_URL ? undefined : EMBEDDED_POOL_MAX,
      });
      return;
    default:
      fail(`Unknown command "${command}".\n\n${USAGE}`, 2);
  }
}

main().catch((error: Error) =>
  fail(
    ['debug', 'trace'].includes(process.env.LOG_LEVEL ?? '') ? String(error.stack) : error.message,
  ),
);
