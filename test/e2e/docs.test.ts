import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useApiStack } from '../support/api-stack.ts';
import { browserAvailable, launchBrowser } from './web-support.ts';

/**
 * The API reference at /docs in a real browser (docs/api.md): Redoc's standalone bundle, served
 * by the API from node_modules, renders every operation of the OpenAPI document the app serves,
 * under the page's CSP, with nothing loaded from another origin.
 */

const RUN = browserAvailable();
const RENDER_TIMEOUT_MS = 30_000;

const stack = useApiStack({ seed: false });
let browser: Browser;
let page: Page;
const pageErrors: string[] = [];
/** Requests the page tried to send to another origin, those the CSP blocked, those answered. */
const foreignRequests: string[] = [];
const blockedByCsp: string[] = [];
const foreignResponses: string[] = [];
const CSP_BLOCKED = /^Loading the \w+ '([^']+)' violates the following Content Security Policy/;

describe.runIf(RUN)('/docs in chromium', () => {
  beforeAll(async () => {
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    page.on('pageerror', (e) => pageErrors.push(String(e)));
    const foreign = (url: string) => !url.startsWith('blob:') && !url.startsWith(`${stack.A}/`);
    page.on('request', (r) => foreign(r.url()) && foreignRequests.push(r.url()));
    page.on('response', (r) => foreign(r.url()) && foreignResponses.push(r.url()));
    page.on('console', (m) => {
      const blocked = CSP_BLOCKED.exec(m.text())?.[1];
      if (blocked) blockedByCsp.push(blocked);
    });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
  });

  it('serves the page and the bundle from this origin, without inline script', async () => {
    const response = await fetch(`${stack.A}/docs`);
    expect(response.status).toBe(200);
    const csp = response.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toMatch(/script-src[^;]*unsafe-inline/);
    expect(csp).not.toMatch(/https?:/);
    const html = await response.text();
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(html).not.toMatch(/https?:\/\//);
    const src = /<script src="([^"]+)"/.exec(html)?.[1];
    expect(src).toMatch(/^\/docs\//);
    const bundle = await fetch(`${stack.A}${src}`);
    expect(bundle.status).toBe(200);
    expect(bundle.headers.get('content-type')).toMatch(/javascript/);
    expect((await bundle.text()).length).toBeGreaterThan(100_000);
  });

  it('renders every operation of the document: its summary, and a path in the request panel', async () => {
    await page.goto(`${stack.A}/docs`);
    const doc = (await (await fetch(`${stack.A}/docs/openapi.json`)).json()) as {
      info: { title: string };
      paths: Record<string, Record<string, { summary: string }>>;
    };
    await page
      .getByRole('heading', { name: doc.info.title })
      .waitFor({ timeout: RENDER_TIMEOUT_MS });
    const operations = Object.values(doc.paths).flatMap((ops) => Object.values(ops));
    expect(operations.length).toBeGreaterThanOrEqual(20);
    const headings = (await page.locator('h2').allTextContents()).map((h) => h.trim());
    for (const op of operations) expect(headings, op.summary).toContain(op.summary);
    // The request panel of an operation shows its method and path.
    await expect
      .poll(() => page.getByText('/api/tokens/{address}/refresh', { exact: true }).count())
      .toBeGreaterThan(0);
  });

  it("searches the operations (Redoc's search index runs in a worker the CSP allows)", async () => {
    const search = page.getByPlaceholder('Search...');
    const results = page.locator('[data-role="search:results"] [role="menuitem"]');
    // Typed again on each try: a query typed before the index is built finds nothing.
    await expect
      .poll(
        async () => {
          await search.fill('');
          await search.pressSequentially('watch');
          return results.evaluateAll((items) => items.map((i) => i.getAttribute('aria-label')));
        },
        { timeout: RENDER_TIMEOUT_MS },
      )
      .toContain('Watch a token (BASIC or PRO)');
  });

  it('raised no page error; whatever the bundle asks of another origin, the CSP blocks', () => {
    expect(pageErrors).toEqual([]);
    // Redoc's footer logo points at its CDN: the request never leaves, and the page shows no
    // broken image (the logo hides itself on error). Offline, the page is complete.
    for (const url of foreignRequests) expect(blockedByCsp, url).toContain(url);
    expect(foreignResponses).toEqual([]);
  });
});
