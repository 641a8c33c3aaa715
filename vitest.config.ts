import { readdirSync, readFileSync } from 'node:fs';
import { defineConfig } from 'vitest/config';

const IGNORED = /^(node_modules|\.data|\.git)\//;
/** The fault suite breaks services on purpose and takes minutes: `npm run test:faults`. */
const FAULTS = /^test\/faults\//;
/**
 * What starts services: Postgres/Redis (test/support/services), Anvil (app/embedded), solc, HTTP
 * mocks.
 */
const NEEDS_SERVICES = /from '[^']*(support\/[^']*|\/anvil\.ts|\/service\.ts|embedded\/index\.ts)'/;

/** Test files under `dir`, never descending into ignored folders (node_modules is large). */
function findTests(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = dir === '.' ? entry.name : `${dir}/${entry.name}`;
    if (entry.isDirectory()) return IGNORED.test(`${path}/`) ? [] : findTests(path);
    return entry.isFile() && path.endsWith('.test.ts') && !FAULTS.test(path) ? [path] : [];
  });
}
const testFiles = findTests('.');
/**
 * Two projects. `unit`: test files that import nothing that starts a service (no Postgres,
 * Redis, Anvil, compiler or mock server) - `npm run test:unit`, seconds. `integration`: the
 * rest, on real services. The split is read from each file's imports, so a new test lands in
 * the right project without a list to maintain.
 */
const unitFiles = testFiles.filter((path) => !NEEDS_SERVICES.test(readFileSync(path, 'utf8')));
const integrationFiles = testFiles.filter((path) => !unitFiles.includes(path));

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Integration files each start their own Anvil; two at a time suits a 2-core machine.
    maxWorkers: 2,
    minWorkers: 1,
    // In CI only: one retry absorbs a rare stall on a loaded 2-core machine; a test that fails
    // twice still fails the build, and every test that needed the retry is listed at the end of
    // the run (test/support/retry-reporter.ts) so flakiness stays visible.
    retry: process.env.CI ? 1 : 0,
    reporters: ['default', './test/support/retry-reporter.ts'],
    projects: [
      { extends: true, test: { name: 'unit', include: unitFiles } },
      { extends: true, test: { name: 'integration', include: integrationFiles } },
    ],
  },
});
