import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import * as chromeLauncher from 'chrome-launcher';
import lighthouse from 'lighthouse';
import { chromium } from 'playwright-core';
import { buildWeb, CHROMIUM, CHROMIUM_ARGS, startStack } from '../test/e2e/web-support.ts';

/**
 * `npm run audit:web`: Lighthouse (performance, accessibility, best practices) on the live feed
 * and a token page of the embedded default, signed in as the demo account, with Debian's
 * chromium. Prints the scores and writes the reports' summary to web/lighthouse-summary.json.
 */

const CATEGORIES = ['performance', 'accessibility', 'best-practices'];
const SETTLE_MS = 20_000;
const SUMMARY = resolve(import.meta.dirname, '..', 'web', 'lighthouse-summary.json');

async function main() {
  buildWeb();
  const dataDir = mkdtempSync(join(tmpdir(), 'tm-audit-'));
  const stack = await startStack({
    DATA_DIR: dataDir,
    REDIS_PREFIX: `audit${process.pid}`,
    DEMO_INTERVAL_SECONDS: '3',
  });
  const chrome = await chromeLauncher.launch({ chromePath: CHROMIUM, chromeFlags: CHROMIUM_ARGS });
  try {
    const demo = stack.banner.demo_account;
    if (!demo) throw new Error('the embedded default printed no demo account');
    // Tokens arrive and get analysed first, so that the pages have their real content.
    await new Promise((r) => setTimeout(r, SETTLE_MS));
    const list = await fetch(`${stack.banner.api}/tokens?limit=20&sort=-current_risk_score`, {
      headers: { authorization: `Bearer ${stack.banner.demo_api_key}` },
    });
    const items = (
      (await list.json()) as { items: { chain_id: number; contract_address: string }[] }
    ).items;
    const token = items[0];
    if (!token) throw new Error('no token detected yet');

    // Sign in once in this browser: the session lives in localStorage, which Lighthouse keeps.
    const browser = await chromium.connectOverCDP(`http://127.0.0.1:${chrome.port}`);
    const page = await browser.contexts()[0]!.newPage();
    await page.goto(stack.banner.web);
    await page.fill('#email', demo.email);
    await page.fill('#password', demo.password);
    await page.click('button[type=submit]');
    await page.locator('h1:has-text("Live feed")').waitFor();
    await page.close();
    await browser.close();

    const targets = {
      feed: stack.banner.web,
      token: new URL(
        `/token/${token.chain_id}/${token.contract_address}`,
        stack.banner.web,
      ).toString(),
    };
    const summary: Record<string, Record<string, number>> = {};
    for (const [name, url] of Object.entries(targets)) {
      const result = await lighthouse(url, {
        port: chrome.port,
        output: 'json',
        logLevel: 'error',
        onlyCategories: CATEGORIES,
        disableStorageReset: true,
      });
      if (!result) throw new Error(`lighthouse returned nothing for ${url}`);
      // Audited signed in: a page that fell back to sign-in would measure the wrong page.
      const landed = result.lhr.finalDisplayedUrl;
      if (new URL(landed).pathname !== new URL(url).pathname)
        throw new Error(`${name}: Lighthouse ended on ${landed}, not ${url}`);
      summary[name] = Object.fromEntries(
        CATEGORIES.map((c) => [c, Math.round((result.lhr.categories[c]?.score ?? 0) * 100)]),
      );
      console.log(
        `${name}: ${CATEGORIES.map((c) => `${c} ${summary[name]![c]}`).join(', ')}  (${url})`,
      );
    }
    writeFileSync(
      SUMMARY,
      `${JSON.stringify({ measured_at: new Date().toISOString(), form_factor: 'mobile (Lighthouse default, simulated throttling)', scores: summary }, null, 2)}\n`,
    );
  } finally {
    chrome.kill();
    await stack.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
