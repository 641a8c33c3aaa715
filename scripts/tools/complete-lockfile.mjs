#!/usr/bin/env node
// Some registry mirrors answer 404 for other platforms' optional binary packages (darwin, win32,
// arm64 …); npm then leaves them out of package-lock.json and `npm ci` refuses the lock as out
// of sync. This adds a stub entry (version, os, cpu, libc) for each such package: npm skips them
// on any platform they do not match, so nothing is ever fetched for them here.
// Usage: node scripts/tools/complete-lockfile.mjs  (after any `npm install` that changes the lock)
import { readFileSync, writeFileSync } from 'node:fs';

const LOCK = new URL('../../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(LOCK, 'utf8'));
const packages = lock.packages;

const OS = [
  'darwin',
  'win32',
  'linux',
  'android',
  'freebsd',
  'openbsd',
  'openharmony',
  'sunos',
  'netbsd',
  'aix',
];
const CPU = [
  [/(^|-)(x64|amd64)(-|$)/, 'x64'],
  [/(^|-)arm64(-|$)/, 'arm64'],
  [/(^|-)(arm|armeabi|gnueabihf|musleabihf)(-|$)/, 'arm'],
  [/(^|-)ia32(-|$)/, 'ia32'],
  [/(^|-)loong64(-|$)/, 'loong64'],
  [/(^|-)ppc64(-|$)/, 'ppc64'],
  [/(^|-)riscv64(-|$)/, 'riscv64'],
  [/(^|-)s390x(-|$)/, 's390x'],
];

function platformOf(name) {
  const base = name.split('/').pop();
  const os = OS.find((o) => base.split('-').includes(o));
  const cpu = CPU.find(([re]) => re.test(base))?.[1];
  if (!os || !cpu) return undefined;
  const libc = /-musl/.test(base)
    ? ['musl']
    : os === 'linux' && /-gnu/.test(base)
      ? ['glibc']
      : undefined;
  return { os: [os], cpu: [cpu], ...(libc ? { libc } : {}) };
}

let added = 0;
for (const [path, entry] of Object.entries(packages)) {
  for (const [dep, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const nested = `${path ? `${path}/` : ''}node_modules/${dep}`;
    const hoisted = `node_modules/${dep}`;
    if (packages[nested] || packages[hoisted]) continue;
    const platform = platformOf(dep);
    if (!platform) continue;
    packages[hoisted] = { version, optional: true, ...platform };
    added++;
  }
}
lock.packages = Object.fromEntries(
  Object.entries(packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))),
);
writeFileSync(LOCK, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`complete-lockfile: ${added} platform stub(s) added`);
