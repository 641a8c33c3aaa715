import { createHash, randomBytes, type ScryptOptions, scrypt, timingSafeEqual } from 'node:crypto';

/**
 * Credentials: scrypt password hashes, API keys and secrets. Only hashes are ever stored; the plain
 * key and secret are shown once. API keys are long random values, so a fast SHA-256 is enough (no
 * dictionary to guess from); passwords are not, so they get scrypt with a per-user salt.
 */

const SCRYPT_PARAMS = { N: 16_384, r: 8, p: 1, keyLength: 64 } as const;
const SALT_BYTES = 16;
const KEY_BYTES = 20;
const SECRET_BYTES = 32;
export const API_KEY_PREFIX = 'svc_pro_';
export const API_SECRET_PREFIX = 'svc_secret_';
const MASK_HEAD = 4;
const MASK_TAIL = 4;
/** The ellipsis of the masked form (U+2026), as the list shows it. */
export const MASK_ELLIPSIS = '…';

export const API_KEY_PATTERN = new RegExp(`^${API_KEY_PREFIX}[0-9a-f]{${KEY_BYTES * 2}}$`);
export const MASKED_KEY_PATTERN = new RegExp(
  `^${API_KEY_PREFIX}[0-9a-f]{${MASK_HEAD}}${MASK_ELLIPSIS}[0-9a-f]{${MASK_TAIL}}$`,
);

function scryptAsync(
  password: string,
  salt: Buffer,
  keyLength: number,
  options: ScryptOptions,
): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password, salt, keyLength, options, (error, key) =>
      error ? reject(error) : resolve(key),
    );
  });
}

/** `scrypt$N$r$p$<salt b64>$<hash b64>`: parameters travel with the hash, so they can be raised later. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const { N, r, p, keyLength } = SCRYPT_PARAMS;
  const hash = await scryptAsync(password.normalize('NFKC'), salt, keyLength, { N, r, p });
  return `scrypt$${N}$${r}$${p}$${salt.toString('base64')}$${hash.toString('base64')}`;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [N, r, p] = parts.slice(1, 4).map(Number) as [number, number, number];
  const salt = Buffer.from(parts[4]!, 'base64');
  const expected = Buffer.from(parts[5]!, 'base64');
  const actual = await scryptAsync(password.normalize('NFKC'), salt, expected.length, { N, r, p });
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/** A hash that costs as much as a real verification: signin answers in the same time for unknown emails. */
let dummyHash: Promise<string> | undefined;
export function dummyPasswordHash(): Promise<string> {
  dummyHash ??= hashPassword(randomBytes(16).toString('hex'));
  return dummyHash;
}

export function sha256Hex(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex');
}

export interface GeneratedKey {
  apiKey: string;
  apiSecret: string;
  keyHash: string;
  secretHash: string;
  maskedKey: string;
}

export function maskApiKey(apiKey: string): string {
  const hex = apiKey.slice(API_KEY_PREFIX.length);
  return `${API_KEY_PREFIX}${hex.slice(0, MASK_HEAD)}${MASK_ELLIPSIS}${hex.slice(-MASK_TAIL)}`;
}

export function generateApiKey(): GeneratedKey {
  const apiKey = `${API_KEY_PREFIX}${randomBytes(KEY_BYTES).toString('hex')}`;
  const apiSecret = `${API_SECRET_PREFIX}${randomBytes(SECRET_BYTES).toString('hex')}`;
  return {
    apiKey,
    apiSecret,
    keyHash: sha256Hex(apiKey),
    secretHash: sha256Hex(apiSecret),
    maskedKey: maskApiKey(apiKey),
  };
}

/** Constant-time equality of two hex digests of equal length. */
export function digestsEqual(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && x.length > 0 && timingSafeEqual(x, y);
}
