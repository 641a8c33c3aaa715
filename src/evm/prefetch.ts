import type { RpcClient, RpcOutcome, RpcRequest } from './rpc.ts';

/**
 * Reads asked ahead, answered later. `prefetch` sends `requests` as one batch now and returns a
 * client that answers any later request equal to one of them (same method, same params) from
 * that batch, and passes everything else through. Reads that different steps of one analysis
 * make, but that depend on nothing those steps learn, thus travel together: behind a coalescing
 * client (coalesce.ts) the storage reads of one contract become one eth_call, whichever step
 * needed them.
 *
 * Only for reads whose answer does not change within the analysis: a read at 'latest' answered
 * from the prefetch is the same read made a moment earlier. `request` (which retries a failure)
 * always passes through; a prefetched failure is handed to `batch` as the batch would have
 * handed it.
 */

const keyOf = (r: RpcRequest) => `${r.method}:${JSON.stringify(r.params)}`;

export async function prefetch(
  rpc: RpcClient,
  requests: readonly RpcRequest[],
): Promise<RpcClient> {
  const unique = [...new Map(requests.map((r) => [keyOf(r), r])).values()];
  const answers = unique.length > 0 ? await rpc.batch(unique) : [];
  const known = new Map(unique.map((r, i) => [keyOf(r), answers[i]!]));

  async function batch<T>(wanted: RpcRequest[]): Promise<RpcOutcome<T>[]> {
    const missing = wanted.filter((r) => !known.has(keyOf(r)));
    const fetched = missing.length > 0 ? await rpc.batch<T>(missing) : [];
    const late = new Map(missing.map((r, i) => [keyOf(r), fetched[i]!]));
    return wanted.map((r) => (known.get(keyOf(r)) ?? late.get(keyOf(r))) as RpcOutcome<T>);
  }

  return { urls: rpc.urls, request: rpc.request.bind(rpc), batch };
}
