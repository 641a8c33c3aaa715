import { connect, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy that counts what clients send a Postgres or Redis server: requests (Postgres:
 * statements, i.e. extended-protocol `Execute` and simple `Query` messages; Redis: RESP commands)
 * and round trips (client writes after which the client waits for an answer: Postgres writes that
 * end in `Sync`, `Flush` or carry a `Query` — an unprepared statement with parameters costs two,
 * its description first — and Redis writes with a command; statements or commands pipelined into
 * one write count once). For benchmarks: the analysis suite counts a pass's round trips with it.
 */

export type WireProtocol = 'postgres' | 'redis';

export interface WireCounts {
  requests: number;
  roundTrips: number;
}

/** Postgres only: round trips and statements per statement text (the first of a write names it). */
export type StatementTally = Map<string, { roundTrips: number; requests: number }>;

export interface WireCounter {
  /** The proxy's URL: `url` with its host and port replaced. */
  url: string;
  counts(): WireCounts;
  /** Postgres: what each statement text cost (for profiling the stages' queries). */
  statements(): StatementTally;
  reset(): void;
  close(): Promise<void>;
}

type Parser = (chunk: Buffer) => { requests: number; waits: boolean; texts: string[] };

const EXECUTE = 0x45; // 'E'
const PARSE = 0x50; // 'P'
const BIND = 0x42; // 'B'
const QUERY = 0x51; // 'Q'
const SYNC = 0x53; // 'S'
const FLUSH = 0x48; // 'H'
const SSL_REQUEST = 80_877_103;

/** Parses a Postgres client's stream; the first message is the untyped start-up. */
function postgresParser(): Parser {
  let buffer = Buffer.alloc(0);
  let started = false;
  // Statement name → its text, as Parse declared it on this connection; Bind names the one run.
  const prepared = new Map<string, string>();
  let bound = '';
  const cString = (from: number) => {
    const end = buffer.indexOf(0, from);
    return { text: buffer.subarray(from, end).toString(), next: end + 1 };
  };
  return (chunk) => {
    buffer = Buffer.concat([buffer, chunk]);
    let requests = 0;
    let waits = false;
    const texts: string[] = [];
    const parsed: string[] = [];
    for (;;) {
      const header = started ? 5 : 8;
      if (buffer.length < header) break;
      const length = started ? buffer.readUInt32BE(1) + 1 : buffer.readUInt32BE(0);
      if (buffer.length < length) break;
      const type = started ? buffer[0] : undefined;
      if (type === PARSE) {
        const name = cString(5);
        const text = cString(name.next).text;
        prepared.set(name.text, text);
        parsed.push(text);
      }
      if (type === BIND) bound = prepared.get(cString(cString(5).next).text) ?? '?';
      if (type === EXECUTE) texts.push(bound);
      if (type === QUERY) texts.push(cString(5).text);
      if (type === EXECUTE || type === QUERY) requests++;
      if (type === SYNC || type === FLUSH || type === QUERY) waits = true;
      // An SSLRequest is answered before the real start-up message follows.
      if (!started && buffer.readUInt32BE(4) !== SSL_REQUEST) started = true;
      buffer = buffer.subarray(length);
    }
    // A write that only prepares (Parse, Describe, Sync) is a round trip of its own.
    if (waits && texts.length === 0) texts.push(...parsed.map((t) => `(prepare) ${t}`));
    return { requests, waits, texts };
  };
}

/** Counts the RESP commands (arrays of bulk strings, or inline commands) in a client's stream. */
function redisParser(): Parser {
  let buffer = Buffer.alloc(0);
  const lineEnd = (from: number) => buffer.indexOf('\r\n', from);
  /** The end of the command at the buffer's start, or -1 when it is incomplete. */
  const commandEnd = (): number => {
    const first = lineEnd(0);
    if (first < 0) return -1;
    if (buffer[0] !== 0x2a) return first + 2; // inline command
    let at = first + 2;
    for (let n = Number(buffer.subarray(1, first).toString()); n > 0; n--) {
      const line = lineEnd(at);
      if (line < 0) return -1;
      at = line + 2 + Number(buffer.subarray(at + 1, line).toString()) + 2;
      if (at > buffer.length) return -1;
    }
    return at;
  };
  return (chunk) => {
    buffer = Buffer.concat([buffer, chunk]);
    let requests = 0;
    for (let end = commandEnd(); end > 0; end = commandEnd()) {
      requests++;
      buffer = buffer.subarray(end);
    }
    return { requests, waits: requests > 0, texts: [] };
  };
}

export async function startWireCounter(url: string, protocol: WireProtocol): Promise<WireCounter> {
  const target = new URL(url);
  const sockets = new Set<Socket>();
  let requests = 0;
  let roundTrips = 0;
  const tally: StatementTally = new Map();
  const server: Server = createServer((client) => {
    const upstream = connect(Number(target.port), target.hostname);
    const parse = protocol === 'postgres' ? postgresParser() : redisParser();
    sockets.add(client).add(upstream);
    const drop = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    for (const s of [client, upstream]) s.on('error', drop).on('close', drop);
    client.on('data', (chunk: Buffer) => {
      const parsed = parse(chunk);
      requests += parsed.requests;
      if (parsed.waits) roundTrips++;
      parsed.texts.forEach((text, i) => {
        const entry = tally.get(text) ?? { roundTrips: 0, requests: 0 };
        if (!text.startsWith('(prepare)')) entry.requests++;
        if (i === 0 && parsed.waits) entry.roundTrips++;
        tally.set(text, entry);
      });
    });
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const address = server.address();
  const proxied = new URL(url);
  proxied.hostname = '127.0.0.1';
  proxied.port = String(typeof address === 'object' && address ? address.port : 0);
  return {
    url: proxied.toString(),
    counts: () => ({ requests, roundTrips }),
    statements: () => new Map(tally),
    reset() {
      requests = 0;
      roundTrips = 0;
      tally.clear();
    },
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}
