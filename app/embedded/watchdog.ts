import { spawn } from 'node:child_process';
import type { Socket } from 'node:net';

/**
 * A parent-death watch for the children the embedded default starts (Anvil, redis-server). They
 * run in process groups of their own, so that a terminal's Ctrl-C reaches only this process and
 * it stops them in order; but then nothing ends them when this process dies without running its
 * exit hooks (kill -9, an OOM kill, a crash of the runtime), and each crash left one more.
 *
 * The watch is a tiny shell, also in a group of its own, reading a pipe whose only writer is this
 * process. The kernel closes the pipe when this process dies, however it dies; the shell then
 * reads end-of-file and stops the child: SIGTERM, SIGKILL after the grace period. No polling.
 */

const GRACE_TENTHS = 30;
const WATCH_SCRIPT = [
  'read -r _ignored',
  'kill -TERM "$1" 2>/dev/null || exit 0',
  'i=0',
  `while kill -0 "$1" 2>/dev/null && [ "$i" -lt ${GRACE_TENTHS} ]; do sleep 0.1; i=$((i + 1)); done`,
  'kill -KILL "$1" 2>/dev/null',
  'exit 0',
].join('\n');

export interface ParentDeathWatch {
  /** The watching shell's pid (tests). */
  pid: number | undefined;
  /** This process stops the child itself: the watch ends without touching it. */
  cancel(): void;
}

/** Stops process `pid` when this process dies, however it dies. */
export function stopWhenThisProcessDies(pid: number): ParentDeathWatch {
  const watch = spawn('/bin/sh', ['-c', WATCH_SCRIPT, 'watchdog', String(pid)], {
    stdio: ['pipe', 'ignore', 'ignore'],
    detached: true,
  });
  watch.on('error', () => {}); // no shell: the exit hooks remain the only stop
  // Neither the watch nor its pipe keeps this process alive.
  watch.unref();
  (watch.stdin as Socket | null)?.unref();
  return {
    pid: watch.pid,
    cancel() {
      if (watch.exitCode === null && watch.signalCode === null) watch.kill('SIGKILL');
    },
  };
}
