import type { RawData } from 'ws';
import { z } from 'zod';
import type { Subscription } from './fanout.ts';
import type { Client, ClientRegistry } from './registry.ts';
import { CLOSE_LIMIT, spendMessage, type WebSocketAccess } from './session.ts';

/**
 * A client's messages (docs/websocket.md): subscribe (its filter, precomputed here once rather
 * than on every event) and ping, within the connection's message budget.
 */

const clientMessage = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('subscribe'),
    chain_ids: z.array(z.number().int().positive()).max(50).optional(),
    watchlist_only: z.boolean().optional(),
    min_risk_score: z.number().min(0).max(100).optional(),
  }),
  z.object({ type: z.literal('ping') }),
]);

type ClientMessage = z.infer<typeof clientMessage>;
type SubscribeMessage = Extract<ClientMessage, { type: 'subscribe' }>;

/** A client's message, or the error to answer it with. */
function parseClientMessage(raw: RawData): { message: ClientMessage } | { error: string } {
  try {
    const result = clientMessage.safeParse(JSON.parse(raw.toString()));
    if (!result.success) return { error: result.error.issues[0]?.message ?? 'invalid message' };
    return { message: result.data };
  } catch {
    return { error: 'message: malformed JSON' };
  }
}

/** The filter a subscribe message asks for; the watchlist, when asked for, is added once read. */
function subscriptionFrom(message: SubscribeMessage): Subscription {
  return {
    chainIds:
      message.chain_ids && message.chain_ids.length > 0 ? new Set(message.chain_ids) : undefined,
    minRiskScore: message.min_risk_score,
  };
}

/** The confirmation of a subscribe message, echoing the filter now in force. */
function subscribedReply(message: SubscribeMessage, watchlistOnly: boolean): string {
  return JSON.stringify({
    type: 'subscribed',
    chain_ids: message.chain_ids ?? [],
    min_risk_score: message.min_risk_score ?? null,
    watchlist_only: watchlistOnly,
  });
}

const errorReply = (error: string) => JSON.stringify({ type: 'error', error });

/** Applies a new filter: a live client moves to its class now, a replaying one when caught up. */
function subscribe(registry: ClientRegistry, client: Client, subscription: Subscription) {
  client.subscription = subscription;
  if (!client.pending) registry.goLive(client);
}

export function onClientMessage(
  client: Client,
  raw: RawData,
  deps: { registry: ClientRegistry; access?: WebSocketAccess },
) {
  const { socket } = client;
  // Subscribe storms run queries: excess messages are refused, a client that keeps on is closed.
  const verdict = spendMessage(client);
  if (verdict === 'close') return deps.registry.close(client, CLOSE_LIMIT, 'Too many messages');
  if (verdict === 'refuse') return socket.send(errorReply('Too many messages: slow down'));
  const read = parseClientMessage(raw);
  if ('error' in read) return socket.send(errorReply(read.error));
  const parsed = read.message;
  if (parsed.type === 'ping')
    return socket.send(JSON.stringify({ type: 'pong', ts: new Date().toISOString() }));
  const subscription = subscriptionFrom(parsed);
  if (parsed.watchlist_only && deps.access && client.userId !== undefined) {
    // The watchlist as it is now; a later change takes effect with the next subscribe.
    void deps.access.watchlist(client.userId).then(
      (watchlist) => {
        subscribe(deps.registry, client, { ...subscription, watchlist });
        socket.send(subscribedReply(parsed, true));
      },
      () => socket.send(errorReply('watchlist: temporarily unavailable')),
    );
    return;
  }
  subscribe(deps.registry, client, subscription);
  socket.send(subscribedReply(parsed, parsed.watchlist_only ?? false));
}
