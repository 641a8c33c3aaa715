#!/usr/bin/env node
// Builds the web app (web/ → web/dist) when the bundle is missing or older than its sources, then
// checks the first-load JavaScript budget: the build fails past it. `npm start` runs this first,
// so a fresh machine still needs only `npm install && npm start`. `--force` always builds.
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';

const ROOT = resolve(import.meta.dirname, '..');
const WEB = join(ROOT, 'web');
const DIST = join(WEB, 'dist');
const STAMP = join(DIST, '.build-stamp');
/** First-load JavaScript, gzipped: the entry script and the modules it preloads. */
export const BUDGET_BYTES = 200 * 1024;
const SOURCES = [
  join(WEB, 'src'),
  join(WEB, 'index.html'),
  join(WEB, 'vite.config.ts'),
  join(ROOT, 'package-lock.json'),
];

function newestMtime(path) {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(0, ...readdirSync(path).map((name) => newestMtime(join(path, name))));
}

function isStale() {
  if (!existsSync(STAMP) || !existsSync(join(DIST, 'index.html'))) return true;
  return Math.max(...SOURCES.map(newestMtime)) > statSync(STAMP).mtimeMs;
}

/** The scripts the page loads before it can run: the entry module and its modulepreloads. */
export function firstLoadScripts(html) {
  const found = new Set();
  for (const m of html.matchAll(/<script[^>]+src="([^"]+)"/g)) found.add(m[1]);
  for (const m of html.matchAll(/<link[^>]+rel="modulepreload"[^>]+href="([^"]+)"/g))
    found.add(m[1]);
  return [...found];
}

export function checkBudget() {
  const html = readFileSync(join(DIST, 'index.html'), 'utf8');
  const scripts = firstLoadScripts(html);
  if (scripts.length === 0) throw new Error('web budget: no script found in web/dist/index.html');
  let total = 0;
  const rows = scripts.map((src) => {
    const bytes = gzipSync(readFileSync(join(DIST, src.replace(/^\//, '')))).length;
    total += bytes;
    return `  ${src}: ${(bytes / 1024).toFixed(1)} KB gzipped`;
  });
  const line = `web budget: first-load JavaScript ${(total / 1024).toFixed(1)} KB gzipped (limit ${BUDGET_BYTES / 1024} KB)`;
  return { ok: total <= BUDGET_BYTES, total, report: [line, ...rows].join('\n') };
}

async function main() {
  const force = process.argv.includes('--force');
  if (!force && !isStale()) return;
  let vite;
  try {
    vite = await import('vite');
  } catch {
    if (existsSync(join(DIST, 'index.html'))) return;
    console.warn(
      'web app: not built and vite is not installed (npm install without --omit=dev builds it); the API runs without it.',
    );
    return;
  }
  console.log('web app: building web/dist …');
  await vite.build({ configFile: join(WEB, 'vite.config.ts'), logLevel: 'warn' });
  const budget = checkBudget();
  console.log(budget.report);
  if (!budget.ok) {
    console.error(
      'web budget exceeded: the first load must stay within 200 KB of gzipped JavaScript.',
    );
    process.exit(1);
  }
  writeFileSync(STAMP, `${new Date().toISOString()}\n`);
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
