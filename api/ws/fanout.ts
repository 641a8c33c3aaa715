import type { EventMessage } from '../../src/events/types.ts';

/**
 * WebSocket fan-out (docs/scale.md): clients with the same filter form a subscription class. A
 * batch of events is serialized and framed once per event, the frames a class wants are joined
 * once per class, and every member gets that one buffer in one write on its raw connection. The
 * matching runs once per class, not once per client; a member whose connection does not drain is
 * reported slow and skipped, so it never holds the others up.
 */

/** A client's filter, precomputed at subscribe time. */
export interface Subscription {
  chainIds?: ReadonlySet<number>;
  minRiskScore?: number;
  /** `chain_id:address` of the user's watchlist when the client asked for watchlist_only. */
  watchlist?: ReadonlySet<string>;
}

export interface FanoutMember {
  /** The raw connection under the WebSocket: pre-framed bytes go straight to it. */
  wire: { write(chunk: Buffer): boolean; readonly writableLength: number };
  /**
   * The WebSocket over that connection: once it is closing nothing may follow its close frame. Its
   * state is read directly (no per-member callback): the loop visits 10,000 members per event.
   */
  socket: { readonly readyState: number };
  /** Called instead of a write when the member's unsent bytes exceed the limit. */
  onSlow(): void;
}

/** A member whose unsent data exceeds this is not keeping up. */
export const MAX_UNSENT_BYTES = 1 << 20;
const OPCODE_TEXT_FINAL = 0x81;
/** WebSocket.OPEN (the `ws` library's and the browser's readyState). */
const READY_STATE_OPEN = 1;

export function matches(subscription: Subscription, event: EventMessage): boolean {
  if (subscription.chainIds && !subscription.chainIds.has(event.data.chain_id)) return false;
  if (
    subscription.watchlist &&
    !subscription.watchlist.has(`${event.data.chain_id}:${event.data.contract_address}`)
  )
    return false;
  if (subscription.minRiskScore !== undefined) {
    const score = (event.data as { current_risk_score?: number | null }).current_risk_score;
    // Events without a score yet (token.created) pass: the score is not known to be low.
    if (typeof score === 'number' && score < subscription.minRiskScore) return false;
  }
  return true;
}

/** An unmasked, final text frame (RFC 6455 §5.2): what a server sends for one message. */
export function textFrame(payload: Buffer): Buffer {
  const length = payload.length;
  const headerLength = length < 126 ? 2 : length < 65_536 ? 4 : 10;
  const frame = Buffer.allocUnsafe(headerLength + length);
  frame[0] = OPCODE_TEXT_FINAL;
  if (length < 126) {
    frame[1] = length;
  } else if (length < 65_536) {
    frame[1] = 126;
    frame.writeUInt16BE(length, 2);
  } else {
    frame[1] = 127;
    frame.writeBigUInt64BE(BigInt(length), 2);
  }
  payload.copy(frame, headerLength);
  return frame;
}

interface SubscriptionClass {
  subscription: Subscription;
  members: Set<FanoutMember>;
  /** The members as a plain array for the write loop, rebuilt after a join or leave. */
  list: FanoutMember[] | undefined;
}

export interface Fanout {
  /** Puts a member in the class of `subscription` (leaving its previous class). */
  join(member: FanoutMember, subscription: Subscription): void;
  leave(member: FanoutMember): void;
  /** Sends a batch of events, in order, to every member whose filter they match. */
  publish(events: readonly EventMessage[]): void;
  classCount(): number;
  memberCount(): number;
}

export function createFanout(): Fanout {
  const classes = new Map<string, SubscriptionClass>();
  const classOf = new Map<FanoutMember, string>();
  // Watchlists are per user: a set's identity (not its contents) names its class.
  const watchlistIds = new WeakMap<ReadonlySet<string>, number>();
  let nextWatchlistId = 1;

  function keyOf(subscription: Subscription): string {
    const chains = subscription.chainIds
      ? [...subscription.chainIds].sort((a, b) => a - b).join(',')
      : '*';
    let watchlist = '*';
    if (subscription.watchlist) {
      if (!watchlistIds.has(subscription.watchlist))
        watchlistIds.set(subscription.watchlist, nextWatchlistId++);
      watchlist = String(watchlistIds.get(subscription.watchlist));
    }
    return `${chains}|${subscription.minRiskScore ?? '*'}|${watchlist}`;
  }

  function leave(member: FanoutMember) {
    const key = classOf.get(member);
    if (key === undefined) return;
    classOf.delete(member);
    const group = classes.get(key);
    if (!group) return;
    group.members.delete(member);
    group.list = undefined;
    if (group.members.size === 0) classes.delete(key);
  }

  /** Writes `payload` to every open member that keeps up; the others are reported slow. */
  function send(group: SubscriptionClass, payload: Buffer) {
    group.list ??= [...group.members];
    const list = group.list;
    for (let i = 0; i < list.length; i++) {
      const member = list[i]!;
      if (member.socket.readyState !== READY_STATE_OPEN) continue;
      if (member.wire.writableLength > MAX_UNSENT_BYTES) {
        member.onSlow();
        continue;
      }
      member.wire.write(payload);
    }
  }

  return {
    join(member, subscription) {
      leave(member);
      const key = keyOf(subscription);
      let group = classes.get(key);
      if (!group) {
        group = { subscription, members: new Set(), list: undefined };
        classes.set(key, group);
      }
      group.members.add(member);
      group.list = undefined;
      classOf.set(member, key);
    },
    leave,
    publish(events) {
      if (events.length === 0 || classes.size === 0) return;
      const frames = events.map((event) => textFrame(Buffer.from(JSON.stringify(event))));
      for (const group of classes.values()) {
        const wanted = frames.filter((_, i) => matches(group.subscription, events[i]!));
        if (wanted.length === 0) continue;
        send(group, wanted.length === 1 ? wanted[0]! : Buffer.concat(wanted));
      }
    },
    classCount: () => classes.size,
    memberCount: () => classOf.size,
  };
}
