import { spawnSync } from 'node:child_process';
import { execFileSync } from 'node:child_process';

/**
 * `npm run check:size`: no source file over 400 lines, no function over 80 (Biome's
 * noExcessiveLinesPerFile and noExcessiveLinesPerFunction, whose limits biome.json sets; the rules
 * are off in `npm run lint` and enabled here). Tests are not held to it: a `describe` callback is a
 * function that holds a whole suite.
 */

const TESTS = /(\.test\.ts$|^test\/)/;

const sources = execFileSync('git', ['ls-files', '-z', '*.ts', '*.mjs'], { encoding: 'utf8' })
  .split('\0')
  .filter((file) => file && !TESTS.test(file));

const result = spawnSync(
  'npx',
  [
    'biome', 'lint', '--max-diagnostics=none',
    '--only=style/noExcessiveLinesPerFile', '--only=complexity/noExcessiveLinesPerFunction',
    ...sources,
  ],
  { stdio: 'inherit' },
);
process.exit(result.status ?? 1);
