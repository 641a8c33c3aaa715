import { existsSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import express, { type Response, Router } from 'express';

/**
 * The web app (docs/web.md), served by the API role at `/`, same origin as the API. The bundle is
 * built by `scripts/web-build.mjs` into web/dist; hashed assets are cached for a year, the page
 * itself never, so that a new build is picked up on the next load. Every page answer carries a
 * Content-Security-Policy that allows scripts from this origin only: no inline script anywhere.
 */

export const WEB_DIST_DIR = resolve(import.meta.dirname, '..', 'web', 'dist');

/** Paths the web app never answers: the API's own 404 (JSON) stays theirs. */
const NOT_WEB = /^\/(api|ws|docs|health|ready|metrics|admin)(\/|$)/;
const ASSET_MAX_AGE = '365d';

export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  // Same-origin WebSocket: 'self' covers ws:/wss: of this origin (CSP level 3).
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

function pageHeaders(res: Response) {
  res.set({
    'Content-Security-Policy': CONTENT_SECURITY_POLICY,
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'X-Frame-Options': 'DENY',
    'Cache-Control': 'no-cache',
  });
}

const NOT_BUILT_PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1"><title>token-monitor</title></head>
<body><main><h1>token-monitor</h1><p>The web app is not built. Run <code>npm run build:web</code>
(or <code>npm start</code>, which builds it when missing), then reload. The API is at
<a href="/docs">/docs</a>.</p></main></body></html>`;

export function webRouter(distDir: string = WEB_DIST_DIR): Router {
  const router = Router();
  const indexPath = join(distDir, 'index.html');
  // Re-read when the file changes: a build finished after start-up is served without a restart
  // (and never an old page naming assets the new build removed).
  let index: { html: string; mtimeMs: number } | undefined;
  const page = () => {
    if (!existsSync(indexPath)) return undefined;
    const { mtimeMs } = statSync(indexPath);
    if (index?.mtimeMs !== mtimeMs) index = { html: readFileSync(indexPath, 'utf8'), mtimeMs };
    return index.html;
  };

  router.use(
    '/assets',
    express.static(join(distDir, 'assets'), {
      immutable: true,
      maxAge: ASSET_MAX_AGE,
      index: false,
      fallthrough: true,
      setHeaders: (res) => res.set('X-Content-Type-Options', 'nosniff'),
    }),
  );
  router.use(
    express.static(distDir, {
      index: false,
      maxAge: 0,
      setHeaders: (res) => res.set('X-Content-Type-Options', 'nosniff'),
    }),
  );
  router.get(/.*/, (req, res, next) => {
    if (NOT_WEB.test(req.path) || req.path.startsWith('/assets/')) return next();
    // Only a browser navigation (which names text/html) gets the page; an API client, even one
    // accepting anything, keeps the JSON 404.
    if (!(req.headers.accept ?? '').includes('text/html')) return next();
    pageHeaders(res);
    const html = page();
    res
      .status(html ? 200 : 503)
      .type('html')
      .send(html ?? NOT_BUILT_PAGE);
  });
  return router;
}
