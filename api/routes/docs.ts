import { Router } from 'express';
import { openApiDocument } from '../openapi.ts';
import type { RouteSpec } from '../route.ts';

/**
 * `/docs`: the OpenAPI 3.1 document (JSON at /docs/openapi.json) and a self-contained page that
 * renders it: no CDN, no external script or font, so it works offline.
 */

const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>token-monitor API</title>
<style>
body{font:15px/1.5 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:0;color:#1b1f24;background:#f6f8fa}
header{background:#1b1f24;color:#fff;padding:16px 24px}header h1{margin:0;font-size:20px}header p{margin:4px 0 0;color:#c9d1d9}
main{max-width:1100px;margin:0 auto;padding:16px 24px}h2{margin:28px 0 8px;font-size:18px;border-bottom:1px solid #d0d7de;padding-bottom:4px}
details{background:#fff;border:1px solid #d0d7de;border-radius:6px;margin:8px 0}summary{cursor:pointer;padding:8px 12px;display:flex;gap:12px;align-items:center}
.m{font:600 12px/1 ui-monospace,monospace;padding:4px 8px;border-radius:4px;color:#fff;min-width:52px;text-align:center}
.get{background:#1f6feb}.post{background:#2da44e}.delete{background:#cf222e}.p{font-family:ui-monospace,monospace}.s{color:#57606a}
.body{padding:4px 16px 12px}table{border-collapse:collapse;width:100%;margin:6px 0}td,th{border:1px solid #d0d7de;padding:4px 8px;text-align:left;vertical-align:top;font-size:13px}
pre{background:#f6f8fa;border:1px solid #d0d7de;border-radius:4px;padding:8px;overflow:auto;font-size:12px;max-height:360px}.lock{font-size:12px;color:#9a6700}
</style></head><body>
<header><h1 id="title">token-monitor API</h1><p id="desc">Loading <a style="color:#9ecbff" href="docs/openapi.json">openapi.json</a>…</p></header>
<main id="main"></main>
<script>
(async function () {
  const base = location.pathname.replace(/\\/$/, '');
  const doc = await (await fetch(base + '/openapi.json')).json();
  const el = (tag, attrs, ...children) => { const e = document.createElement(tag); Object.assign(e, attrs || {}); for (const c of children) e.append(c); return e; };
  const deref = (s) => { let x = s; for (let i = 0; x && x.$ref && i < 10; i++) x = doc.components.schemas[x.$ref.split('/').pop()]; return x; };
  const json = (v) => el('pre', { textContent: JSON.stringify(v, null, 2) });
  document.getElementById('title').textContent = doc.info.title + ' ' + doc.info.version;
  document.getElementById('desc').textContent = doc.info.description || '';
  const byTag = new Map();
  for (const [path, ops] of Object.entries(doc.paths)) for (const [method, op] of Object.entries(ops)) {
    const tag = (op.tags || ['Other'])[0]; if (!byTag.has(tag)) byTag.set(tag, []); byTag.get(tag).push({ path, method, op });
  }
  const main = document.getElementById('main');
  main.append(el('p', {}, 'Raw document: ', el('a', { href: base + '/openapi.json', textContent: 'openapi.json' })));
  for (const [tag, ops] of byTag) {
    main.append(el('h2', { textContent: tag }));
    for (const { path, method, op } of ops) {
      const auth = (op.security || []).map((s) => Object.keys(s)[0]).join(' or ');
      const d = el('details', {}, el('summary', {}, el('span', { className: 'm ' + method, textContent: method.toUpperCase() }), el('span', { className: 'p', textContent: path }), el('span', { className: 's', textContent: op.summary || '' }), auth ? el('span', { className: 'lock', textContent: '🔒 ' + auth }) : ''));
      const body = el('div', { className: 'body' });
      if (op.description) body.append(el('p', { textContent: op.description }));
      if ((op.parameters || []).length) {
        const t = el('table', {}, el('tr', {}, el('th', { textContent: 'parameter' }), el('th', { textContent: 'in' }), el('th', { textContent: 'required' }), el('th', { textContent: 'schema' }), el('th', { textContent: 'description' })));
        for (const p of op.parameters) t.append(el('tr', {}, el('td', { className: 'p', textContent: p.name }), el('td', { textContent: p.in }), el('td', { textContent: p.required ? 'yes' : '' }), el('td', { className: 'p', textContent: JSON.stringify(p.schema) }), el('td', { textContent: p.description || '' })));
        body.append(t);
      }
      if (op.requestBody) body.append(el('h4', { textContent: 'Request body' }), json(deref(op.requestBody.content['application/json'].schema)));
      const rt = el('table', {}, el('tr', {}, el('th', { textContent: 'status' }), el('th', { textContent: 'description' })));
      for (const [status, r] of Object.entries(op.responses)) rt.append(el('tr', {}, el('td', { textContent: status }), el('td', { textContent: r.description })));
      body.append(el('h4', { textContent: 'Responses' }), rt);
      const ok = Object.entries(op.responses).find(([s, r]) => s.startsWith('2') && r.content);
      if (ok) body.append(el('h4', { textContent: ok[0] + ' schema' }), json(deref(ok[1].content['application/json'].schema)));
      d.append(body); main.append(d);
    }
  }
  main.append(el('h2', { textContent: 'Schemas' }));
  for (const [name, s] of Object.entries(doc.components.schemas)) main.append(el('details', {}, el('summary', {}, el('span', { className: 'p', textContent: name })), el('div', { className: 'body' }, json(s))));
})().catch((e) => { document.getElementById('desc').textContent = 'Could not load the document: ' + e.message; });
</script></body></html>`;

export function docsRouter(
  routes: readonly RouteSpec[],
  info: { title: string; version: string; description?: string },
): Router {
  const router = Router();
  let document: Record<string, unknown> | undefined;
  router.get('/docs/openapi.json', (_req, res) => {
    // Built once, from the same declarations the app mounted.
    document ??= openApiDocument(routes, info);
    res.json(document);
  });
  router.get(['/docs', '/docs/'], (_req, res) => {
    res
      .set(
        'Content-Security-Policy',
        "default-src 'self'; script-src 'unsafe-inline'; style-src 'unsafe-inline'",
      )
      .type('html')
      .send(PAGE);
  });
  return router;
}
