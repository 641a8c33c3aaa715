import { readFileSync } from 'node:fs';

/**
 * CPU and memory of a process from /proc (Linux): CPU seconds (user + system) and resident
 * memory. A process that has exited reads as undefined.
 */

/** Clock ticks per second of /proc/<pid>/stat (USER_HZ: 100 on Linux). */
const TICKS_PER_SECOND = 100;

export interface ProcessUsage {
  cpuSeconds: number;
  rssMiB: number;
}

export function processUsage(pid: number): ProcessUsage | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces): state is field 3, utime 14, stime 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const utime = Number(fields[11]);
    const stime = Number(fields[12]);
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const rssKiB = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
    return { cpuSeconds: (utime + stime) / TICKS_PER_SECOND, rssMiB: rssKiB / 1024 };
  } catch {
    return undefined;
  }
}

/**
 * Samples processes over a window: CPU share (of one core) between `start()` and `stop()`, and
 * the largest resident memory seen at any `sample()`.
 */
export function usageWindow(pids: Record<string, number>) {
  const first = new Map<string, ProcessUsage>();
  const peak = new Map<string, number>();
  let startedAt = 0;
  const sample = () => {
    for (const [name, pid] of Object.entries(pids)) {
      const u = processUsage(pid);
      if (u) peak.set(name, Math.max(peak.get(name) ?? 0, u.rssMiB));
    }
  };
  return {
    start() {
      startedAt = performance.now();
      for (const [name, pid] of Object.entries(pids)) {
        const u = processUsage(pid);
        if (u) first.set(name, u);
      }
      sample();
    },
    sample,
    /** Per process: CPU as a percentage of one core over the window, and peak RSS in MiB. */
    stop(): Record<string, { cpuPct: number; peakRssMiB: number }> {
      sample();
      const seconds = (performance.now() - startedAt) / 1000;
      const out: Record<string, { cpuPct: number; peakRssMiB: number }> = {};
      for (const [name, pid] of Object.entries(pids)) {
        const a = first.get(name);
        const b = processUsage(pid);
        if (!a || !b) continue;
        out[name] = {
          cpuPct: ((b.cpuSeconds - a.cpuSeconds) / seconds) * 100,
          peakRssMiB: peak.get(name) ?? b.rssMiB,
        };
      }
      return out;
    },
  };
}
