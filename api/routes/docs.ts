import { createRequire } from 'node:module';
import { type Response, Router } from 'express';
import { openApiDocument } from '../openapi.ts';
import type { RouteSpec } from '../route.ts';

/**
 * `/docs`: the OpenAPI 3.1 document (JSON at /docs/openapi.json) rendered by Redoc, a maintained
 * renderer. Its standalone bundle comes from the `redoc` package (a runtime dependency) and is
 * served from node_modules by this router: no CDN, no external script or font, so the page works
 * offline. The page holds no inline script: the bundle finds the `<redoc spec-url>` element
 * itself.
 */

const BUNDLE_PATH = '/docs/redoc.standalone.js';
const DOCUMENT_PATH = '/docs/openapi.json';
const REDOC_BUNDLE = createRequire(import.meta.url).resolve('redoc/bundles/redoc.standalone.js');
/** The bundle's name carries no version: a day's cache, so an upgrade reaches browsers soon. */
const BUNDLE_MAX_AGE = '1d';

/**
 * Scripts from this origin only. Redoc's styled-components write <style> elements (hence inline
 * styles), and its search index runs in a Worker made from a blob: URL.
 */
const DOCS_CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "worker-src 'self' blob:",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>token-monitor API</title><link rel="icon" href="data:,"></head>
<body>
<noscript><p>The API reference needs JavaScript. The document itself: <a href="${DOCUMENT_PATH}">openapi.json</a> (OpenAPI 3.1).</p></noscript>
<redoc spec-url="${DOCUMENT_PATH}" expand-responses="200,201,202" hide-hostname native-scrollbars></redoc>
<script src="${BUNDLE_PATH}"></script>
</body></html>`;

function securityHeaders(res: Response) {
  res.set({
    'Content-Security-Policy': DOCS_CONTENT_SECURITY_POLICY,
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'X-Frame-Options': 'DENY',
  });
}

export function docsRouter(
  routes: readonly RouteSpec[],
  info: { title: string; version: string; description?: string },
): Router {
  const router = Router();
  let document: Record<string, unknown> | undefined;
  router.get(DOCUMENT_PATH, (_req, res) => {
    // Built once, from the same declarations the app mounted.
    document ??= openApiDocument(routes, info);
    res.json(document);
  });
  router.get(BUNDLE_PATH, (_req, res, next) => {
    securityHeaders(res);
    res.sendFile(REDOC_BUNDLE, { maxAge: BUNDLE_MAX_AGE }, (error) => error && next(error));
  });
  router.get(['/docs', '/docs/'], (_req, res) => {
    securityHeaders(res);
    res.set('Cache-Control', 'no-cache').type('html').send(PAGE);
  });
  return router;
}
