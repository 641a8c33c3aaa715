import { readFileSync } from 'node:fs';

/** What a test asks about processes it started, and the chains they served. */

/** Gone, or a zombie that only waits for its new parent to reap it. */
export function processGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return true;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return true;
  }
}

/** Polls until `pid` is gone; whether it went within `timeoutMs`. */
export async function waitGone(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!processGone(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  return processGone(pid);
}

/** Whether a JSON-RPC node answers eth_chainId at `rpcUrl`. */
export async function rpcAnswers(rpcUrl: string): Promise<boolean> {
  try {
    const res = await fetch(rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}',
      signal: AbortSignal.timeout(1_000),
    });
    return res.ok;
  } catch {
    return false;
  }
}
