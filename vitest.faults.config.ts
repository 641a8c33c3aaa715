import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/faults/**/*.test.ts'],
    testTimeout: 600_000,
    hookTimeout: 300_000,
    maxWorkers: 1,
    minWorkers: 1,
  },
});
