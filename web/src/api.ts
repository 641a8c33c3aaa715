import { type SessionUser, session } from './session.ts';
import {
  asNumber,
  asRecord,
  type Json,
  normalizeToken,
  type TokenFilters,
  type TokenListItem,
  type TokenPage,
} from './token-model.ts';

export type * from './token-model.ts';

/**
 * The one place the web app meets the API (the reference at /docs): typed requests per
 * endpoint. The token object's shape and its reading are in token-model.ts.
 */

export type Plan = SessionUser['plan'];

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly retryAfter: number | null = null,
  ) {
    super(message);
  }
}

/** The API could not be reached at all (down, network gone): not the caller's fault. */
export const UNREACHABLE = 0;

type Query = Record<string, string | number | boolean | undefined | null>;

function withQuery(path: string, query?: Query): string {
  if (!query) return path;
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query))
    if (value !== undefined && value !== null && value !== '') params.set(key, String(value));
  const text = params.toString();
  return text ? `${path}?${text}` : path;
}

export async function request<T>(
  method: string,
  path: string,
  options: { query?: Query; body?: unknown; anonymous?: boolean } = {},
): Promise<T> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  const current = options.anonymous ? null : session.get();
  if (current) headers.Authorization = `Bearer ${current.token}`;
  if (options.body !== undefined) headers['Content-Type'] = 'application/json';
  let response: Response;
  try {
    response = await fetch(withQuery(path, options.query), {
      method,
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      credentials: 'omit',
    });
  } catch {
    throw new ApiError(
      UNREACHABLE,
      'The service cannot be reached. It may be restarting; retrying shortly.',
    );
  }
  const text = await response.text();
  let data: unknown = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = null;
  }
  if (!response.ok) {
    const message = (data as { error?: unknown } | null)?.error;
    const error = new ApiError(
      response.status,
      typeof message === 'string' ? message : `The service answered ${response.status}.`,
      Number(response.headers.get('Retry-After')) || null,
    );
    // A rejected JWT ends the session: the person lands on sign-in with a message.
    if (response.status === 401 && current) session.expire();
    throw error;
  }
  return data as T;
}

// ---- accounts -------------------------------------------------------------------------------

export interface Me extends SessionUser {
  plan_state: string | null;
  plan_ends_at?: string | null;
  payment_failed_at: string | null;
  downgraded_at: string | null;
  created_at: string | null;
}

export const auth = {
  signUp: (email: string, password: string) =>
    request<{ user: SessionUser }>('POST', '/api/auth/signup', {
      body: { email, password },
      anonymous: true,
    }),
  signIn: (email: string, password: string) =>
    request<{ token: string; expires_in: number; user: SessionUser }>('POST', '/api/auth/signin', {
      body: { email, password },
      anonymous: true,
    }),
  me: () => request<Me>('GET', '/api/auth/me'),
};

export interface ApiKeyCreated {
  api_key: string;
  api_secret: string;
  name: string | null;
  status: string;
  created_at: string;
}

export interface ApiKeyListed {
  api_key: string;
  name: string | null;
  status: string;
  created_at: string;
  last_used: string | null;
  usage_stats: {
    requests_today: number;
    requests_this_month: number;
    total_requests: number;
  } | null;
}

export const keys = {
  async generate(name: string, description: string): Promise<ApiKeyCreated> {
    const body = { plan: 'pro', name, ...(description ? { description } : {}) };
    try {
      return await request<ApiKeyCreated>('POST', '/api/auth/generate-api-key', { body });
    } catch (error) {
      // Servers older than the documented body refuse the `plan` field: ask once more without it.
      if (
        !(
          error instanceof ApiError &&
          error.status === 400 &&
          /plan|unrecognized/i.test(error.message)
        )
      )
        throw error;
      const { plan: _plan, ...rest } = body;
      return request<ApiKeyCreated>('POST', '/api/auth/generate-api-key', { body: rest });
    }
  },
  list: () => request<{ api_keys: ApiKeyListed[]; total: number }>('GET', '/api/auth/api-keys'),
  revoke: (apiKey: string) =>
    request<{ message: string }>('DELETE', `/api/auth/api-keys/${encodeURIComponent(apiKey)}`),
};

export interface Preferences {
  email_alerts: boolean;
  alert_kinds: string[];
}

export const preferences = {
  get: () => request<Preferences>('GET', '/api/preferences'),
  put: (value: Partial<Preferences>) =>
    request<Preferences>('PUT', '/api/preferences', { body: value }),
};

// ---- billing --------------------------------------------------------------------------------

export type BillingPeriod = 'monthly' | 'annual';

export interface BillingOverview {
  configured: boolean;
  plans: {
    plan: 'BASIC' | 'PRO';
    period: BillingPeriod;
    price: { amount: number | null; currency: string; interval: string | null } | null;
  }[];
  trial_days: number;
  has_billing_account: boolean;
  subscription: {
    status: string;
    plan: 'BASIC' | 'PRO' | null;
    period: BillingPeriod | null;
    current_period_end: string | null;
    cancel_at: string | null;
  } | null;
}

export const billing = {
  overview: () => request<BillingOverview>('GET', '/api/billing'),
  checkout: (plan: 'BASIC' | 'PRO', period: BillingPeriod) =>
    request<{ checkout_url: string; trial_days: number }>('POST', '/api/billing/checkout', {
      body: { plan: plan.toLowerCase(), period },
    }),
  portal: () => request<{ portal_url: string }>('POST', '/api/billing/portal'),
};

// ---- tokens ---------------------------------------------------------------------------------

export const tokens = {
  list: (filters: TokenFilters) =>
    request<TokenPage>('GET', '/api/tokens', { query: { ...filters } }),
  detail: async (chainId: number, address: string) =>
    normalizeToken(
      await request<unknown>('GET', `/api/tokens/${address}`, {
        query: { chain_id: chainId, view: 'complete' },
      }),
    ),
  refresh: (chainId: number, address: string) =>
    request<{ status: string }>('POST', `/api/tokens/${address}/refresh`, {
      query: { chain_id: chainId },
    }),
};

// ---- creators and watchlist -----------------------------------------------------------------

export interface Creator {
  address: string;
  chain_id: number;
  total_tokens: number | null;
  success_rate: number | null;
  scam_rate: number | null;
  reputation_score: number | null;
  first_seen: string | null;
  last_seen: string | null;
  tokens?: TokenListItem[];
}

export const creators = {
  async detail(chainId: number, address: string): Promise<Creator> {
    const c = await request<Creator>('GET', `/api/creators/${address}`, {
      query: { chain_id: chainId },
    });
    return {
      ...c,
      success_rate: asNumber(c.success_rate),
      scam_rate: asNumber(c.scam_rate),
    };
  },
};

export interface WatchItem {
  contract_address: string;
  chain_id: number;
  added_at: string;
  token: TokenListItem | null;
}

export const watchlist = {
  list: () => request<{ items: WatchItem[]; total: number }>('GET', '/api/watchlist'),
  add: (chainId: number, address: string) =>
    request<WatchItem>('POST', '/api/watchlist', { body: { address, chain_id: chainId } }),
  remove: (chainId: number, address: string) =>
    request<unknown>('DELETE', `/api/watchlist/${address}`, { query: { chain_id: chainId } }),
};

// ---- live events (WebSocket) ----------------------------------------------------------------

export interface LiveEvent {
  id: string;
  type: 'token.created' | 'token.updated' | 'alert' | 'token.removed';
  ts: string;
  data: Json & { contract_address: string; chain_id: number };
}

export function isLiveEvent(value: unknown): value is LiveEvent {
  const v = asRecord(value);
  const data = asRecord(v?.data);
  return (
    !!v &&
    typeof v.id === 'string' &&
    typeof v.type === 'string' &&
    !!data &&
    typeof data.contract_address === 'string' &&
    typeof data.chain_id === 'number'
  );
}
