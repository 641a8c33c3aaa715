import type { operations } from './api-types.ts';

/**
 * The signed-in session: the JWT lives in localStorage (never a cookie, so no CSRF surface) and
 * is sent as `Authorization: Bearer`. Shared by the tabs of one browser; signing out in one tab
 * signs out all of them (the storage event).
 */

const STORAGE_KEY = 'token-monitor.session';

/** The user as signin answers it (the API's generated types). */
export type SessionUser =
  operations['postApiAuthSignin']['responses'][200]['content']['application/json']['user'];

export interface Session {
  token: string;
  expiresAt: number;
  user: SessionUser;
}

type Listener = () => void;
const listeners = new Set<Listener>();
let notice: string | null = null;

function read(): Session | null {
  try {
    const raw = localStorage.getItem(STORAGE_KEY);
    if (!raw) return null;
    const parsed = JSON.parse(raw) as Session;
    if (typeof parsed.token !== 'string' || parsed.expiresAt <= Date.now()) return null;
    return parsed;
  } catch {
    return null;
  }
}

let current: Session | null = read();

function emit() {
  for (const listener of listeners) listener();
}

window.addEventListener('storage', (event) => {
  if (event.key !== STORAGE_KEY) return;
  current = read();
  emit();
});

export const session = {
  get: (): Session | null => {
    // An expired JWT is no session: the person is sent to sign-in with a note, not a blank page.
    if (current && current.expiresAt <= Date.now()) session.expire();
    return current;
  },
  start(token: string, expiresInSeconds: number, user: SessionUser) {
    current = { token, expiresAt: Date.now() + expiresInSeconds * 1000, user };
    notice = null;
    localStorage.setItem(STORAGE_KEY, JSON.stringify(current));
    emit();
  },
  updateUser(user: SessionUser) {
    if (!current) return;
    const changed =
      current.user.plan !== user.plan || current.user.trial_ends_at !== user.trial_ends_at;
    current = { ...current, user };
    localStorage.setItem(STORAGE_KEY, JSON.stringify(current));
    if (changed) emit();
  },
  end(message: string | null = null) {
    current = null;
    notice = message;
    localStorage.removeItem(STORAGE_KEY);
    emit();
  },
  expire() {
    if (current) session.end('Your session has expired. Please sign in again.');
  },
  /** The message the sign-in page shows once (session expired, signed out). */
  takeNotice(): string | null {
    const value = notice;
    notice = null;
    return value;
  },
  subscribe(listener: Listener): () => void {
    listeners.add(listener);
    return () => listeners.delete(listener);
  },
};
