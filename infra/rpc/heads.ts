import type { Logger } from 'pino';
import WebSocket from 'ws';
import { fromQuantity } from '../../src/evm/rpc.ts';
import type { RpcBlockHeader } from '../../src/evm/types.ts';

/**
 * newHeads over WebSocket: a wake-up signal with the new block's header. The scanner polls over
 * HTTP either way, so a dropped subscription costs latency and calls, never data. Reconnects with
 * backoff.
 */

const RECONNECT_MIN_MS = 500;
const RECONNECT_MAX_MS = 15_000;

export interface HeadSubscription {
  close(): void;
  connected(): boolean;
}

export function subscribeNewHeads(
  wsUrl: string,
  /** `header` when the notification carries number, hash, parentHash and timestamp. */
  onHead: (blockNumber: number, header?: RpcBlockHeader) => void,
  logger?: Logger,
): HeadSubscription {
  let socket: WebSocket | undefined;
  let closed = false;
  let isConnected = false;
  let delay = RECONNECT_MIN_MS;
  let timer: NodeJS.Timeout | undefined;

  const connect = () => {
    if (closed) return;
    socket = new WebSocket(wsUrl);
    socket.on('open', () => {
      delay = RECONNECT_MIN_MS;
      socket?.send(
        JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params: ['newHeads'] }),
      );
    });
    socket.on('message', (raw) => {
      try {
        const msg = JSON.parse(raw.toString()) as {
          id?: number;
          result?: unknown;
          error?: unknown;
          params?: { result?: Partial<Record<keyof RpcBlockHeader, unknown>> };
        };
        if (msg.id === 1) {
          isConnected = !msg.error;
          if (msg.error) socket?.close();
          return;
        }
        const head = msg.params?.result;
        if (typeof head?.number !== 'string') return;
        const { number, hash, parentHash, timestamp } = head;
        const whole =
          typeof hash === 'string' &&
          typeof parentHash === 'string' &&
          typeof timestamp === 'string';
        onHead(fromQuantity(number), whole ? { number, hash, parentHash, timestamp } : undefined);
      } catch {
        // A malformed notification is ignored: polling covers for it.
      }
    });
    socket.on('error', (error) => logger?.debug({ err: error.message }, 'newHeads socket error'));
    socket.on('close', () => {
      isConnected = false;
      if (closed) return;
      timer = setTimeout(connect, delay);
      delay = Math.min(delay * 2, RECONNECT_MAX_MS);
    });
  };
  connect();

  return {
    close() {
      closed = true;
      if (timer) clearTimeout(timer);
      socket?.removeAllListeners('close');
      socket?.terminate();
    },
    connected: () => isConnected,
  };
}
