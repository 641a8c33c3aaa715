import type { IncomingMessage } from 'node:http';
import proxyaddr from 'proxy-addr';

/**
 * The client address, as Express computes `req.ip`, for requests outside Express (WebSocket
 * upgrades). TRUST_PROXY is Express's `trust proxy`: off (the default) means the socket's
 * address, so X-Forwarded-For is ignored; `true`, a hop count, or a comma-separated list of
 * addresses, subnets or the names loopback / linklocal / uniquelocal of the proxies to trust.
 */

export type TrustProxy = boolean | number | string;

export function compileTrust(setting: TrustProxy): (address: string, hop: number) => boolean {
  if (setting === true) return () => true;
  if (setting === false) return () => false;
  if (typeof setting === 'number') return (_address, hop) => hop < setting;
  return proxyaddr.compile(
    setting
      .split(',')
      .map((part) => part.trim())
      .filter(Boolean),
  );
}

export function clientAddressOf(trust: TrustProxy): (request: IncomingMessage) => string {
  const fn = compileTrust(trust);
  return (request) =>
    (trust === false ? request.socket.remoteAddress : proxyaddr(request, fn)) ?? 'unknown';
}

/** TRUST_PROXY's text: unset or "false" → off, "true" → on, digits → hop count, else a list. */
export function parseTrustProxy(value: string | undefined): TrustProxy {
  if (value === undefined || value.trim() === '' || value.trim() === 'false') return false;
  if (value.trim() === 'true') return true;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  return value.trim();
}
