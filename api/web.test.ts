import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONTENT_SECURITY_POLICY, webRouter } from './web.ts';

/** Static serving of the web app: the page with its CSP on any app path, assets cached, API paths left alone. */

const dist = mkdtempSync(join(tmpdir(), 'web-dist-'));
const empty = mkdtempSync(join(tmpdir(), 'web-empty-'));
let server: Server;
let base: string;

beforeAll(async () => {
  mkdirSync(join(dist, 'assets'));
  writeFileSync(
    join(dist, 'index.html'),
    '<!doctype html><html><body><div id="app"></div><script type="module" src="/assets/index-abc.js"></script></body></html>',
  );
  writeFileSync(join(dist, 'assets', 'index-abc.js'), 'console.log(1)');
  const app = express();
  app.use('/empty', webRouter(empty));
  app.use(webRouter(dist));
  app.use((_req, res) => res.status(404).json({ error: 'Not found' }));
  server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => {
  server?.close();
  rmSync(dist, { recursive: true, force: true });
  rmSync(empty, { recursive: true, force: true });
});

describe('web app serving', () => {
  it('answers every app path with the page and its CSP, without inline scripts allowed', async () => {
    for (const path of ['/', '/tokens?q=x', '/token/1/0xabc', '/settings']) {
      const response = await fetch(`${base}${path}`, { headers: { accept: 'text/html' } });
      expect(response.status).toBe(200);
      expect(await response.text()).toContain('<div id="app">');
      expect(response.headers.get('content-security-policy')).toBe(CONTENT_SECURITY_POLICY);
      expect(response.headers.get('cache-control')).toBe('no-cache');
    }
    expect(CONTENT_SECURITY_POLICY).toContain("script-src 'self'");
    expect(CONTENT_SECURITY_POLICY).not.toContain('unsafe');
  });

  it('serves hashed assets as immutable, and leaves API paths and JSON clients to the API', async () => {
    const asset = await fetch(`${base}/assets/index-abc.js`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('cache-control')).toContain('immutable');
    expect((await fetch(`${base}/assets/missing.js`)).status).toBe(404);
    for (const path of ['/api/tokens', '/api/nope', '/ws', '/docs/x', '/metrics']) {
      const response = await fetch(`${base}${path}`, { headers: { accept: 'text/html' } });
      expect(response.status).toBe(404);
      expect(await response.json()).toEqual({ error: 'Not found' });
    }
    for (const accept of ['application/json', '*/*']) {
      const json = await fetch(`${base}/whatever`, { headers: { accept } });
      expect(json.status).toBe(404);
    }
  });

  it('says how to build the app when the bundle is missing', async () => {
    const response = await fetch(`${base}/empty/`, { headers: { accept: 'text/html' } });
    expect(response.status).toBe(503);
    expect(await response.text()).toContain('npm run build:web');
  });
});
