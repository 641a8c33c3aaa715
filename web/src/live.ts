import { useEffect, useSyncExternalStore } from 'react';
import { isLiveEvent, type LiveEvent } from './api.ts';
import { session } from './session.ts';

/**
 * The live connection (docs/web.md): one WebSocket per tab to `/ws`, authenticated by the
 * `bearer.<JWT>` subprotocol so that no secret is in a URL. When it cannot be had (FREE plan,
 * BASIC's single connection held by another tab, service down) the pages poll instead, and
 * `status.reason` says why in words. A lost connection resumes with `?since=<last event id>`.
 */

export const POLL_INTERVAL_MS = 5_000;
const RETRY_LIMITED_MS = 30_000;
/** A reloaded tab's previous connection may hold the slot for a moment: the first retry is quick. */
const RETRY_LIMITED_FIRST_MS = 3_000;
const RETRY_MIN_MS = 2_000;
const RETRY_MAX_MS = 30_000;
const PROTOCOL = 'token-monitor';
/** Close codes 4000 + HTTP status: how the server tells a browser why it refused. */
const REFUSED_UNAUTHORIZED = 4401;
const REFUSED_PLAN = 4403;
const REFUSED_LIMIT = 4429;

export type LiveStatus =
  | { mode: 'off' }
  | { mode: 'connecting' }
  | { mode: 'live' }
  | { mode: 'polling'; reason: string };

type Handler = (event: LiveEvent) => void;

let status: LiveStatus = { mode: 'off' };
const statusListeners = new Set<() => void>();
const handlers = new Set<Handler>();
let socket: WebSocket | null = null;
let retryTimer: ReturnType<typeof setTimeout> | undefined;
let retryDelay = RETRY_MIN_MS;
let lastEventId: string | null = null;
let wantedFor: string | null = null;
let limitedRefusals = 0;

const keyOf = (current: { token: string; user: { plan: string } }) =>
  `${current.user.plan}|${current.token}`;

function setStatus(next: LiveStatus) {
  status = next;
  for (const listener of statusListeners) listener();
}

function scheduleRetry(ms: number) {
  clearTimeout(retryTimer);
  retryTimer = setTimeout(connect, ms);
}

function connect() {
  const current = session.get();
  if (!current || wantedFor !== keyOf(current)) return;
  if (current.user.plan === 'FREE') {
    setStatus({
      mode: 'polling',
      reason: 'Live updates come with the BASIC plan. This page refreshes every 5 seconds instead.',
    });
    return;
  }
  setStatus({ mode: 'connecting' });
  const url = new URL('/ws', window.location.href);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  if (lastEventId) url.searchParams.set('since', lastEventId);
  let opened = false;
  const ws = new WebSocket(url, [PROTOCOL, `bearer.${current.token}`]);
  socket = ws;
  ws.onopen = () => {
    opened = true;
  };
  ws.onmessage = (message) => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(String(message.data));
    } catch {
      return;
    }
    const kind = (parsed as { type?: unknown }).type;
    if (kind === 'welcome') {
      retryDelay = RETRY_MIN_MS;
      limitedRefusals = 0;
      setStatus({ mode: 'live' });
      ws.send(JSON.stringify({ type: 'subscribe' }));
      return;
    }
    if (!isLiveEvent(parsed)) return;
    lastEventId = parsed.id;
    for (const handler of handlers) handler(parsed);
  };
  ws.onclose = (event) => {
    if (socket !== ws) return;
    socket = null;
    if (wantedFor === null) return;
    if (event.code === REFUSED_UNAUTHORIZED) {
      session.expire();
      return;
    }
    if (event.code === REFUSED_PLAN) {
      setStatus({
        mode: 'polling',
        reason:
          'Live updates come with the BASIC plan. This page refreshes every 5 seconds instead.',
      });
      return;
    }
    if (event.code === REFUSED_LIMIT) {
      const limit =
        current.user.plan === 'BASIC'
          ? 'Your BASIC plan allows one live connection'
          : 'Your plan’s live connections are all in use';
      setStatus({
        mode: 'polling',
        reason: `${limit}, and it is open in another tab or app. This tab refreshes every 5 seconds instead and tries again every 30 seconds.`,
      });
      scheduleRetry(limitedRefusals++ === 0 ? RETRY_LIMITED_FIRST_MS : RETRY_LIMITED_MS);
      return;
    }
    setStatus({
      mode: 'polling',
      reason: opened
        ? 'The live connection was lost. Refreshing every 5 seconds while it reconnects.'
        : 'The live connection could not be opened (the service may be restarting). Refreshing every 5 seconds while it retries.',
    });
    scheduleRetry(retryDelay);
    retryDelay = Math.min(retryDelay * 2, RETRY_MAX_MS);
  };
}

function stop() {
  wantedFor = null;
  clearTimeout(retryTimer);
  const ws = socket;
  socket = null;
  ws?.close(1000, 'signed out');
  setStatus({ mode: 'off' });
}

/** Keeps the connection in step with the session: opened on sign-in, closed on sign-out. */
export function syncLive() {
  const current = session.get();
  const key = current ? keyOf(current) : null;
  if (key === wantedFor && (socket || status.mode === 'polling')) return;
  if (!key) {
    stop();
    return;
  }
  if (socket) socket.close(1000, 'session changed');
  wantedFor = key;
  retryDelay = RETRY_MIN_MS;
  connect();
}

export function useLiveStatus(): LiveStatus {
  return useSyncExternalStore(
    (listener) => {
      statusListeners.add(listener);
      return () => statusListeners.delete(listener);
    },
    () => status,
  );
}

export function useLiveEvents(handler: Handler) {
  useEffect(() => {
    handlers.add(handler);
    return () => {
      handlers.delete(handler);
    };
  }, [handler]);
}
