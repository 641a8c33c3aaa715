import { startFaultProxy } from './fault-proxy.ts';

/**
 * A JSON-RPC proxy in front of a real node that pretends to lack methods (a node without traces
 * or eth_getBlockReceipts) and counts what passes through: the fault proxy without faults.
 */

export interface RpcProxy {
  url: string;
  calls: Map<string, number>;
  close(): Promise<void>;
}

export async function startRpcProxy(
  upstream: string,
  options: { refuse?: string[] } = {},
): Promise<RpcProxy> {
  const proxy = await startFaultProxy(upstream, { rate: 0, refuse: options.refuse });
  return { url: proxy.url, calls: proxy.calls, close: proxy.close };
}
