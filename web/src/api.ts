import type { components, operations } from './api-types.ts';
import { type SessionUser, session } from './session.ts';
import { asNumber, asRecord, normalizeToken, type TokenFilters } from './token-model.ts';

export type * from './token-model.ts';
export { oneOf, RISK_LEVELS } from './token-model.ts';

/**
 * The one place the web app meets the API (the reference at /docs): typed requests per
 * endpoint. Every request and answer type is read from the generated OpenAPI types
 * (api-types.ts, `npm run generate:api-types`), so the browser and the server cannot disagree;
 * the token object's reading is in token-model.ts.
 */

type Operation = keyof operations;
/** What operation `Op` answers with status `S` (JSON), as the API declares it. */
type Answer<
  Op extends Operation,
  S extends keyof operations[Op]['responses'] = 200 & keyof operations[Op]['responses'],
> = operations[Op]['responses'][S] extends { content: { 'application/json': infer T } } ? T : never;
/** The JSON body operation `Op` takes. */
type Body<Op extends Operation> = operations[Op] extends {
  requestBody?: { content: { 'application/json': infer T } };
}
  ? T
  : never;

export type Plan = SessionUser['plan'];
export type AlertKind = Preferences['alert_kinds'][number];

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

export type Me = components['schemas']['User'];

export const auth = {
  signUp: (email: string, password: string) =>
    request<Answer<'postApiAuthSignup', 201>>('POST', '/api/auth/signup', {
      body: { email, password },
      anonymous: true,
    }),
  signIn: (email: string, password: string) =>
    request<Answer<'postApiAuthSignin'>>('POST', '/api/auth/signin', {
      body: { email, password },
      anonymous: true,
    }),
  me: () => request<Me>('GET', '/api/auth/me'),
};

export type ApiKeyCreated = components['schemas']['ApiKeyCreated'];
export type ApiKeyListed = Answer<'getApiAuthApiKeys'>['api_keys'][number];

export const keys = {
  async generate(name: string, description: string): Promise<ApiKeyCreated> {
    const body: Body<'postApiAuthGenerateApiKey'> = {
      plan: 'pro',
      name,
      ...(description ? { description } : {}),
    };
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
  list: () => request<Answer<'getApiAuthApiKeys'>>('GET', '/api/auth/api-keys'),
  revoke: (apiKey: string) =>
    request<Answer<'deleteApiAuthApiKeysApiKey'>>(
      'DELETE',
      `/api/auth/api-keys/${encodeURIComponent(apiKey)}`,
    ),
};

export type Preferences = Answer<'getApiPreferences'>;
export type PreferencesUpdate = Body<'putApiPreferences'>;

export const preferences = {
  get: () => request<Preferences>('GET', '/api/preferences'),
  put: (value: PreferencesUpdate) =>
    request<Answer<'putApiPreferences'>>('PUT', '/api/preferences', { body: value }),
};

// ---- billing --------------------------------------------------------------------------------

export type BillingOverview = Answer<'getApiBilling'>;
export type BillingPeriod = BillingOverview['plans'][number]['period'];

export const billing = {
  overview: () => request<BillingOverview>('GET', '/api/billing'),
  checkout: (plan: 'BASIC' | 'PRO', period: BillingPeriod) =>
    request<Answer<'postApiBillingCheckout', 201>>('POST', '/api/billing/checkout', {
      body: { plan: plan.toLowerCase(), period },
    }),
  portal: () => request<Answer<'postApiBillingPortal', 201>>('POST', '/api/billing/portal'),
};

// ---- tokens ---------------------------------------------------------------------------------

export const tokens = {
  list: (filters: TokenFilters) =>
    request<Answer<'getApiTokens'>>('GET', '/api/tokens', { query: { ...filters } }),
  detail: async (chainId: number, address: string) =>
    normalizeToken(
      await request<unknown>('GET', `/api/tokens/${address}`, {
        query: { chain_id: chainId, view: 'complete' },
      }),
    ),
  refresh: (chainId: number, address: string) =>
    request<Answer<'postApiTokensAddressRefresh', 202>>('POST', `/api/tokens/${address}/refresh`, {
      query: { chain_id: chainId },
    }),
};

// ---- creators and watchlist -----------------------------------------------------------------

export type Creator = Answer<'getApiCreatorsAddress'>;

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

export type WatchItem = Answer<'getApiWatchlist'>['items'][number];

export const watchlist = {
  list: () => request<Answer<'getApiWatchlist'>>('GET', '/api/watchlist'),
  add: (chainId: number, address: string) => {
    const body: Body<'postApiWatchlist'> = { address, chain_id: chainId };
    return request<Answer<'postApiWatchlist', 201>>('POST', '/api/watchlist', { body });
  },
  remove: (chainId: number, address: string) =>
    request<Answer<'deleteApiWatchlistAddress'>>('DELETE', `/api/watchlist/${address}`, {
      query: { chain_id: chainId },
    }),
};

// ---- live events (WebSocket) ----------------------------------------------------------------

/** One WebSocket message, as the API declares it (api/token-schemas.ts `eventMessage`). */
export type LiveEvent = components['schemas']['LiveEvent'];

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
