import { type ChildProcess, execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { type Browser, chromium, type Page } from 'playwright-core';
import type { UniswapV4Deployment } from '../../app/embedded/index.ts';
import { spawnStart, startEnv, waitForBanner } from '../support/start-process.ts';

/**
 * Browser test support (docs/web.md): Debian's chromium driven by playwright-core (no browser
 * download), the stack started as `npm start` starts it, axe-core run inside the page, and
 * screenshots written to a git-ignored folder.
 */

export const CHROMIUM = '/usr/bin/chromium';
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
export const SCREENSHOT_DIR = resolve(import.meta.dirname, 'screenshots');
export const WIDTHS = [375, 1440] as const;
const ROOT = resolve(import.meta.dirname, '..', '..');
const START_TIMEOUT_MS = 120_000;
const run = promisify(execFile);

/** Outside CI a machine without chromium skips the browser tests (with a message); CI must run them. */
export function browserAvailable(): boolean {
  if (existsSync(CHROMIUM)) return true;
  if (process.env.CI)
    throw new Error(
      `${CHROMIUM} is missing: .ci/run installs it (apt-get install chromium); the browser tests must run in CI`,
    );
  console.warn(`browser tests skipped: ${CHROMIUM} not found (apt-get install -y chromium)`);
  return false;
}

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
}

export function buildWeb() {
  execFileSync(process.execPath, [join(ROOT, 'scripts', 'web-build.mjs')], {
    cwd: ROOT,
    stdio: 'inherit',
  });
}

export interface Banner {
  status: string;
  web: string;
  api: string;
  demo_account: { email: string; password: string } | null;
  demo_api_key: string;
  chains: { chain_id: number; rpc: string }[];
}

export interface Stack {
  banner: Banner;
  /** The demo chain's Uniswap V2, from the dev chain's start-up log (LOG_LEVEL=info). */
  uniswap: { weth: string; factory: string; router: string } | undefined;
  /** The demo chain's Uniswap V4 (PoolManager and v4-core's routers), from the same log. */
  v4: UniswapV4Deployment | undefined;
  child: ChildProcess;
  env: NodeJS.ProcessEnv;
  cli(...args: string[]): Promise<string>;
  stop(): Promise<void>;
}

export async function startStack(env: Record<string, string>): Promise<Stack> {
  const fullEnv = startEnv(env);
  const child = spawnStart(env);
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  const { banner, output } = await waitForBanner<Banner>(child, START_TIMEOUT_MS, () => stderr);
  const ready = output
    .split('\n')
    .filter((l) => l.includes('development chain ready'))
    .map((l) => JSON.parse(l) as Record<string, string>)[0];
  return {
    banner,
    uniswap: ready
      ? { weth: ready.weth!, factory: ready.factory!, router: ready.router! }
      : undefined,
    v4: ready?.poolManager
      ? {
          poolManager: ready.poolManager,
          swapRouter: ready.swapRouter!,
          liquidityRouter: ready.liquidityRouter!,
        }
      : undefined,
    child,
    env: fullEnv,
    async cli(...args: string[]) {
      const { stdout } = await run(process.execPath, ['bin/token-monitor.mjs', ...args], {
        cwd: ROOT,
        env: fullEnv,
      });
      return stdout;
    },
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGINT');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 15_000))]);
      if (child.exitCode === null) child.kill('SIGKILL');
    },
  };
}

const AXE_SOURCE = readFileSync(join(ROOT, 'node_modules', 'axe-core', 'axe.min.js'), 'utf8');

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

/** axe-core evaluated through the DevTools protocol (the page's CSP forbids injected script tags). */
export async function seriousViolations(page: Page): Promise<AxeViolation[]> {
  await page.evaluate(`${AXE_SOURCE}\n;0`);
  const result = await page.evaluate(async () => {
    const scope = globalThis as unknown as {
      axe: { run(ctx: unknown, opts: object): Promise<{ violations: AxeViolation[] }> };
      document: unknown;
    };
    const { violations } = await scope.axe.run(scope.document, { resultTypes: ['violations'] });
    return violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.map((n) => ({ target: n.target })),
    }));
  });
  return result.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

/** Screenshots of the current page at every width, named `<name>-<width>.png`. */
export async function screenshots(page: Page, name: string) {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const original = page.viewportSize();
  try {
    for (const width of WIDTHS) {
      await page.setViewportSize({ width, height: width < 500 ? 812 : 900 });
      await page.waitForTimeout(300);
      await page.screenshot({ path: join(SCREENSHOT_DIR, `${name}-${width}.png`), fullPage: true });
      // Usable at this width: nothing makes the page scroll sideways.
      const overflow = await page.evaluate(() => {
        const doc = (
          globalThis as unknown as {
            document: { documentElement: { scrollWidth: number; clientWidth: number } };
          }
        ).document;
        return doc.documentElement.scrollWidth - doc.documentElement.clientWidth;
      });
      if (overflow > 1) {
        const wide = await widestElements(page);
        throw new Error(`${name} at ${width} px scrolls sideways by ${overflow} px: ${wide}`);
      }
    }
  } finally {
    // A failure at one width must not leave the next test at that width.
    if (original) await page.setViewportSize(original);
  }
}

/** The innermost elements that stick out past the viewport's right edge, for the failure message. */
function widestElements(page: Page): Promise<string> {
  // A string, evaluated in the page: this project is type-checked without the DOM library.
  return page.evaluate(`(() => {
    const limit = document.documentElement.clientWidth + 1;
    const sticksOut = (el) =>
      el.getBoundingClientRect().right > limit || el.scrollWidth > el.clientWidth + 1;
    const out = [];
    for (const el of document.querySelectorAll('body *')) {
      if (!sticksOut(el) || getComputedStyle(el).overflowX === 'auto') continue;
      if ([...el.children].some(sticksOut)) continue;
      const right = Math.round(el.getBoundingClientRect().right);
      out.push(el.tagName.toLowerCase() + '.' + el.className + ' (' + right + ' px, scroll ' + el.scrollWidth + '/' + el.clientWidth + '): ' + (el.textContent || '').slice(0, 80));
    }
    return out.slice(0, 6).join('; ');
  })()`);
}

export async function waitFor<T>(
  probe: () => Promise<T | undefined | null | false>,
  timeoutMs: number,
  what: string,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}
