import { relative } from 'node:path';
import type { Reporter, TestCase } from 'vitest/node';

const MAX_ERROR_CHARS = 300;

/**
 * CI retries a failed test once (vitest.config.ts): that absorbs a rare stall on a loaded
 * machine, but must not hide flakiness. Every test that needed a retry is listed at the end of
 * the run, passed or not, with the first error it met, so each one is visible and can be fixed.
 */
export default class RetryReporter implements Reporter {
  private readonly retried: string[] = [];

  onTestCaseResult(testCase: TestCase): void {
    const retries = testCase.diagnostic()?.retryCount ?? 0;
    if (retries === 0) return;
    const file = relative(process.cwd(), testCase.module.moduleId);
    const times = `${retries} retr${retries === 1 ? 'y' : 'ies'}`;
    const result = testCase.result();
    // A test that passed on its retry keeps the errors of the attempts before: the flake's cause.
    const first = result.errors?.[0]?.message?.split('\n')[0]?.slice(0, MAX_ERROR_CHARS);
    this.retried.push(
      `${file} > ${testCase.fullName}: ${times}, ${result.state}${first ? ` (first: ${first})` : ''}`,
    );
  }

  onTestRunEnd(): void {
    if (this.retried.length === 0) return;
    const lines = this.retried.map((line) => `  RETRIED ${line}`).join('\n');
    console.log(
      `\nTests that needed a retry (${this.retried.length}) - flaky, fix them:\n${lines}\n`,
    );
  }
}
