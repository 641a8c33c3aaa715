import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Logger } from 'pino';
import type { ConnectionSlots } from '../../infra/connection-slots.ts';
import { PLAN_FEATURES, type Plan } from '../../src/plans.ts';
import { HttpError } from '../errors.ts';

/**
 * WebSocket sessions (docs/security.md): admission (credential, plan, connection slot), the
 * re-check of open connections (revocation, downgrade, trial end every few seconds; a timer for
 * the JWT's expiry) and each connection's message budget. The broadcaster (api/ws/broadcaster.ts) owns the
 * sockets; this module decides which of them may stay, and closes the others with a code.
 */

/** Open connections are judged again this often (revocation, downgrade, trial end). */
export const RECHECK_INTERVAL_MS = 5_000;
/** setTimeout's ceiling; a later expiry is caught by the periodic re-check. */
const MAX_TIMER_MS = 2 ** 31 - 1;
/** Client messages per connection: a burst of this many, refilled at the rate below. */
export const MESSAGE_BURST = 20;
const MESSAGE_REFILL_PER_SECOND = 2;
/** A client that keeps sending this many messages past its budget is closed. */
const MAX_REFUSED_MESSAGES = 20;

/** Close codes of the application range (docs/security.md). */
export const CLOSE_UNAUTHORIZED = 4401;
export const CLOSE_PLAN = 4403;
export const CLOSE_LIMIT = 4429;

const UNAUTHORIZED = 'Unauthorized. Please log in again.';

export interface WsPrincipal {
  user: { id: number };
  plan: Plan;
  /** When the credential lapses on its own (JWT expiry); the connection closes then. */
  expiresAt?: Date;
}

/** Who may connect, how many connections each may hold, and their watchlists (docs/websocket.md). */
export interface WebSocketAccess {
  /**
   * The principal of a credential, or undefined when it names none. With `address` (admission) a
   * refusal counts as a failed attempt of that client address, and an address past its limit
   * makes this throw an HttpError 429; without it (re-checks) nothing is counted.
   */
  principalFor(credential: string, address?: string): Promise<WsPrincipal | undefined>;
  /** The client address of an upgrade request (TRUST_PROXY applies); the socket's by default. */
  clientAddress?(request: IncomingMessage): string;
  slots: ConnectionSlots;
  watchlist(userId: number): Promise<ReadonlySet<string>>;
}

/** What a connection carries for its session; the broadcaster's client extends it. */
export interface SessionState {
  /** The authenticated user and the connection slot it holds (absent without access control). */
  userId?: number;
  slotId?: string;
  /** The credential it connected with, re-checked while it is open, and its plan's limit. */
  credential?: string;
  limit?: number;
  expiryTimer?: NodeJS.Timeout;
  /** Message budget (token bucket) and messages refused since the last accepted one. */
  budget: number;
  budgetAt: number;
  refused: number;
}

export interface Identity {
  userId?: number;
  slotId?: string;
  credential?: string;
  limit?: number;
  expiresAt?: Date;
}

export const newSessionState = (): Pick<SessionState, 'budget' | 'budgetAt' | 'refused'> => ({
  budget: MESSAGE_BURST,
  budgetAt: Date.now(),
  refused: 0,
});

type Admitted = { status: 101 } & Required<Omit<Identity, 'expiresAt'>> &
  Pick<Identity, 'expiresAt'>;
export type Admission = Admitted | { status: 401 | 403 | 429; error: string };

/** A browser's credential: the `bearer.<credential>` subprotocol (docs/web.md). */
const BEARER_PROTOCOL_PREFIX = 'bearer.';

export function offeredProtocols(request: IncomingMessage): string[] {
  return (request.headers['sec-websocket-protocol'] ?? '')
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
}

/**
 * Credential (`?token=`, `Authorization: Bearer` or the `bearer.<credential>` subprotocol), plan
 * (FREE refused) and the connection limit.
 */
export async function admit(
  access: WebSocketAccess,
  request: IncomingMessage,
  url: URL,
  address: string,
): Promise<Admission> {
  const header = request.headers.authorization;
  const bearer = header?.startsWith('Bearer ') ? header.slice('Bearer '.length).trim() : undefined;
  const fromProtocol = offeredProtocols(request)
    .find((p) => p.startsWith(BEARER_PROTOCOL_PREFIX))
    ?.slice(BEARER_PROTOCOL_PREFIX.length);
  const credential = url.searchParams.get('token') ?? bearer ?? fromProtocol;
  if (!credential) return { status: 401, error: UNAUTHORIZED };
  let principal: WsPrincipal | undefined;
  try {
    principal = await access.principalFor(credential, address);
  } catch (error) {
    // The address failed too often: refused before any lookup.
    if (error instanceof HttpError && error.status === 429)
      return { status: 429, error: error.message };
    throw error;
  }
  if (!principal) return { status: 401, error: UNAUTHORIZED };
  const limit = PLAN_FEATURES[principal.plan].ws_connections;
  if (limit <= 0) return { status: 403, error: 'BASIC or PRO plan required' };
  const slotId = randomUUID();
  if (!(await access.slots.take(principal.user.id, slotId, limit)))
    return { status: 429, error: 'Connection limit exceeded' };
  return {
    status: 101,
    userId: principal.user.id,
    slotId,
    credential,
    limit,
    expiresAt: principal.expiresAt,
  };
}

export type Verdict = 'serve' | 'refuse' | 'close';

/** Token bucket per connection: serve, refuse (answer an error), or close a client that keeps on. */
export function spendMessage(state: SessionState, now = Date.now()): Verdict {
  const refill = ((now - state.budgetAt) / 1000) * MESSAGE_REFILL_PER_SECOND;
  state.budget = Math.min(MESSAGE_BURST, state.budget + refill);
  state.budgetAt = now;
  if (state.budget >= 1) {
    state.budget -= 1;
    state.refused = 0;
    return 'serve';
  }
  state.refused += 1;
  return state.refused > MAX_REFUSED_MESSAGES ? 'close' : 'refuse';
}

export interface SessionGuard<C extends SessionState> {
  /** Arms the close at the credential's own expiry. */
  armExpiry(client: C, expiresAt: Date | undefined): void;
  stop(): void;
}

/**
 * Judges open connections again every `intervalMs`: one lookup per distinct credential (through
 * the principal cache, which a revocation invalidates on every instance); a dependency failure
 * leaves connections open until the next round.
 */
export function createSessionGuard<C extends SessionState>(options: {
  access: WebSocketAccess;
  log: Logger;
  intervalMs?: number;
  clients: () => Iterable<C>;
  close(client: C, code: number, reason: string): void;
}): SessionGuard<C> {
  const { access, log, close } = options;

  const judge = (client: C, principal: WsPrincipal | undefined) => {
    if (!principal) return close(client, CLOSE_UNAUTHORIZED, 'Credential revoked or expired');
    const limit = PLAN_FEATURES[principal.plan].ws_connections;
    if (limit <= 0) return close(client, CLOSE_PLAN, 'Plan no longer includes the WebSocket');
    // A smaller plan: reconnecting is judged by its limit, so this connection makes room.
    if (limit < (client.limit ?? 0)) return close(client, CLOSE_PLAN, 'Plan changed: reconnect');
    client.limit = limit;
  };

  let running = false;
  const recheckAll = async () => {
    if (running) return;
    running = true;
    try {
      const byCredential = new Map<string, C[]>();
      for (const client of options.clients()) {
        if (client.credential === undefined) continue;
        byCredential.set(client.credential, [
          ...(byCredential.get(client.credential) ?? []),
          client,
        ]);
      }
      for (const [credential, group] of byCredential) {
        let principal: WsPrincipal | undefined;
        try {
          principal = await access.principalFor(credential);
        } catch (error) {
          log.warn({ err: (error as Error).message }, 'websocket re-check failed');
          continue;
        }
        for (const client of group) judge(client, principal);
      }
    } finally {
      running = false;
    }
  };
  const timer = setInterval(() => void recheckAll(), options.intervalMs ?? RECHECK_INTERVAL_MS);
  timer.unref();

  return {
    armExpiry(client, expiresAt) {
      if (!expiresAt) return;
      const delay = Math.max(0, expiresAt.getTime() - Date.now());
      if (delay >= MAX_TIMER_MS) return;
      client.expiryTimer = setTimeout(
        () => close(client, CLOSE_UNAUTHORIZED, 'Credential expired'),
        delay,
      );
    },
    stop() {
      clearInterval(timer);
    },
  };
}
