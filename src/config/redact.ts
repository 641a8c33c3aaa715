/**
 * What must never reach a log line or a printed banner, found by shape wherever it appears: API
 * keys and secrets (`svc_pro_…`, `svc_secret_…`), JWTs, Bearer/Basic credentials, and the path,
 * query and user info of URLs (RPC providers put API keys in the path or the query string).
 */

export const REDACTED = '[redacted]';

/** Keys whose values are secrets whatever they look like ("token" alone is a token address). */
const SECRET_KEY = new RegExp(
  [
    'pass(word|wd)?$',
    'secret',
    'api[-_]?key',
    'authorization',
    'cookie',
    'jwt',
    'credential',
    '(access|refresh|auth|bearer|metrics)[-_]?token',
  ].join('|'),
  'i',
);
const KEY_OR_SECRET = /\bsvc_(pro|secret)_[0-9a-f]{6,}/gi;
const JWT = /\beyJ[\w-]{4,}\.[\w-]{4,}\.[\w-]*/g;
const HEADER_CREDENTIAL = /\b(Bearer|Basic)\s+[\w\-.~+/=]{8,}/gi;
const URL_IN_TEXT = /\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>()]+/gi;
const MAX_DEPTH = 8;

/** `https://rpc.example/v3/KEY?x=1` → `https://rpc.example/***`: scheme, host and port stay. */
export function maskUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return REDACTED;
  }
  const hasPath = parsed.pathname !== '/' && parsed.pathname !== '';
  const hasSecrets =
    parsed.username !== '' || parsed.password !== '' || parsed.search !== '' || parsed.hash !== '';
  const hidden = hasPath || hasSecrets;
  if (!parsed.host) return REDACTED;
  return `${parsed.protocol}//${parsed.host}${hidden ? '/***' : ''}`;
}

export function redactText(text: string): string {
  return text
    .replace(URL_IN_TEXT, (url) => maskUrl(url))
    .replace(KEY_OR_SECRET, REDACTED)
    .replace(JWT, REDACTED)
    .replace(HEADER_CREDENTIAL, (_match, scheme: string) => `${scheme} ${REDACTED}`);
}

/** A copy of `value` with secrets replaced; the original is left untouched. */
export function redactDeep(value: unknown, depth = 0, seen = new WeakSet<object>()): unknown {
  if (typeof value === 'string') return redactText(value);
  if (value === null || typeof value !== 'object' || depth > MAX_DEPTH) return value;
  if (seen.has(value)) return '[circular]';
  seen.add(value);
  if (Array.isArray(value)) return value.map((item) => redactDeep(item, depth + 1, seen));
  if (value instanceof Error) {
    const stack = value.stack ? redactText(value.stack) : undefined;
    return { type: value.name, message: redactText(value.message), stack };
  }
  if (value instanceof Date || ArrayBuffer.isView(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    const secret = SECRET_KEY.test(key) && inner !== undefined && inner !== null;
    out[key] = secret ? REDACTED : redactDeep(inner, depth + 1, seen);
  }
  return out;
}
