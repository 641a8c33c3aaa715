import { relative } from 'node:path';
import type { Reporter, TestCase } from 'vitest/node';

/**
 * CI retries a failed test once (vitest.config.ts): that absorbs a rare stall on a loaded
 * machine, but must not hide flakiness. Every test that needed a retry is listed at the end of
 * the run, passed or not, so each one is visible and can be fixed.
 */
export default class RetryReporter implements Reporter {
  private readonly retried: string[] = [];

  onTestCaseResult(testCase: TestCase): void {
    const retries = testCase.diagnostic()?.retryCount ?? 0;
    if (retries === 0) return;
    const file = relative(process.cwd(), testCase.module.moduleId);
    const times = `${retries} retr${retries === 1 ? 'y' : 'ies'}`;
    this.retried.push(`${file} > ${testCase.fullName}: ${times}, ${testCase.result().state}`);
  }

  onTestRunEnd(): void {
    if (this.retried.length === 0) return;
    const lines = this.retried.map((line) => `  RETRIED ${line}`).join('\n');
    console.log(
      `\nTests that needed a retry (${this.retried.length}) - flaky, fix them:\n${lines}\n`,
    );
  }
}
