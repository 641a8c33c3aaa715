import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['**/*.test.ts'],
    // The fault suite breaks services on purpose and takes minutes: `npm run test:faults`.
    exclude: ['node_modules/**', '.data/**', 'test/faults/**'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Integration files each start their own Anvil; two at a time suits a 2-core machine.
    maxWorkers: 2,
    // In CI only: one retry absorbs a rare stall of ethers' tx.wait() polling on a loaded 2-core
    // machine; a test that fails twice still fails the build.
    retry: process.env.CI ? 1 : 0,
    minWorkers: 1,
  },
});
