import { loadArtifact } from '../../../contracts/artifacts.ts';
import { type RpcClient, RpcError, type RpcOutcome, type RpcRequest } from '../rpc.ts';
import { type BundleCall, decodeCallAll, encodeCallAll } from './bundle-codec.ts';
import { windowOverrides, windowRead } from './slot-window.ts';

/**
 * Fewer JSON-RPC calls for the same reads. A client wrapper whose `batch` folds, by eth_call
 * state override (the same node feature the honeypot test relies on):
 *
 * - eth_getStorageAt of several slots of one contract → ONE eth_call to that contract with the
 *   SlotReader's code put in place of its own (an override of the code keeps the storage);
 * - plain eth_calls from one sender (same block, no value, no override) → ONE eth_call of the
 *   CallBundle placed at that sender and called from it, so that every call still carries the
 *   sender as msg.sender and tx.origin, sees the chain's state (each runs in a sub-call that is
 *   reverted), and gets the gas it asked for (a call the bundle cannot fund is sent alone).
 *
 * - with `acrossSenders`, the calls of several senders (same block) → ONE eth_call of the
 *   CallBundle placed at a hub address, which calls each sender's own CallBundle: every call
 *   still carries its sender as msg.sender, but tx.origin is the hub's for all of them. Only for
 *   callers that know the targets never read ORIGIN (nor delegate to code that might).
 *
 * Answers are what the plain requests would answer: one outcome per request, in order, a revert
 * an answer with its revert data. What differs, and is accepted: during the bundle the sender's
 * account has code (it accepts payments and unknown calls as an EOA does, but a contract that
 * refuses callers with code would see one), and a call without a sender is made from a fixed
 * address instead of the zero address. A node that refuses state
 * overrides is asked plainly from then on. A call that halts exceptionally (all its gas used,
 * no revert data) is sent alone, so that its error is the node's own.
 */

/** Gas of one folded eth_call: the common default cap (anvil: the block gas limit). */
export const COALESCED_GAS = 30_000_000;
/** Gas of a folded call that named none (a plain eth_call would get the node's cap). */
const DEFAULT_CALL_GAS = 5_000_000;
/** What a separate eth_call spends before its code runs (intrinsic cost), which a sub-call does not. */
const INTRINSIC_GAS = 21_000n;
/** The sender of folded calls that named none (a plain eth_call's is the zero address). */
const NO_SENDER = '0x000000000000000000000000000000000000c0a1';
/** Where the bundle of bundles runs when calls of several senders fold into one eth_call. */
const HUB = '0x000000000000000000000000000000000000c0a2';
/**
 * Gas each sender's bundle gets inside the hub: room for a call of the default gas and the
 * bundle's own reserve; a later sender whose share is no longer left is not made (its calls are
 * then sent alone), as a call the bundle cannot fund is.
 */
const SENDER_GAS = Math.floor((COALESCED_GAS * 2) / 3);
const WORD = 64;

const slotReader = loadArtifact('SlotReader').deployedBytecode;
const bundleArtifact = loadArtifact('CallBundle');

/** A request's place in the batch and what it folds into. */
type CallsFold = {
  kind: 'calls';
  key: string;
  sender: string;
  tag: unknown;
  /** Its calls and, with a window, the slot reads of the window's contract (read last). */
  entries: number[];
  /** The contract whose slots ride along through the SlotWindow, and its own code. */
  window?: { address: string; code: string };
};
type Fold =
  | { kind: 'slots'; key: string; address: string; tag: unknown; entries: number[] }
  | CallsFold
  | { kind: 'senders'; key: string; tag: unknown; groups: CallsFold[]; entries: number[] };

interface PlainCall {
  from?: string;
  to: string;
  data: string;
  gas?: string;
}

/** A plain eth_call: a target, call data, maybe a sender and gas, nothing else. */
function plainCall(request: RpcRequest): PlainCall | null {
  if (request.method !== 'eth_call' || request.params.length !== 2) return null;
  const call = request.params[0] as Record<string, unknown> | null;
  if (!call || typeof call.to !== 'string' || typeof call.data !== 'string') return null;
  const allowed = new Set(['from', 'to', 'data', 'gas']);
  if (Object.keys(call).some((k) => !allowed.has(k))) return null;
  // A call to the sender itself would run the bundle's code, not the target's.
  if (typeof call.from === 'string' && call.from.toLowerCase() === call.to.toLowerCase())
    return null;
  return call as unknown as PlainCall;
}

/**
 * The calls of every sender at one block as one fold, unless a call targets one of the senders
 * (or the hub), whose code the fold replaces.
 */
function acrossSenders(requests: readonly RpcRequest[], folds: Fold[]): Fold[] {
  const byTag = new Map<string, CallsFold[]>();
  for (const f of folds)
    if (f.kind === 'calls')
      byTag.set(JSON.stringify(f.tag), [...(byTag.get(JSON.stringify(f.tag)) ?? []), f]);
  const merged = new Set<Fold>();
  const out: Fold[] = [];
  for (const [tag, groups] of byTag) {
    if (groups.length < 2) continue;
    const senders = new Set([HUB, ...groups.map((g) => g.sender)]);
    const targets = groups.flatMap((g) => callsOf(g, requests).map((c) => c.to.toLowerCase()));
    if (targets.some((t) => senders.has(t))) continue;
    for (const g of groups) merged.add(g);
    out.push({
      kind: 'senders',
      key: `senders:${tag}`,
      tag: groups[0]!.tag,
      groups,
      entries: groups.flatMap((g) => g.entries),
    });
  }
  return [...folds.filter((f) => !merged.has(f)), ...out];
}

/** Groups the requests that fold; everything else stays as it is. */
function planFolds(
  requests: readonly RpcRequest[],
  senders: boolean,
  codes: ReadonlyMap<string, string>,
): Fold[] {
  const folds = new Map<string, Fold>();
  requests.forEach((r, i) => {
    if (r.method === 'eth_getStorageAt' && r.params.length === 3) {
      const address = String(r.params[0]).toLowerCase();
      const key = `slots:${address}:${JSON.stringify(r.params[2])}`;
      const fold = folds.get(key) ?? { kind: 'slots', key, address, tag: r.params[2], entries: [] };
      fold.entries.push(i);
      folds.set(key, fold);
      return;
    }
    const call = plainCall(r);
    if (!call) return;
    const sender = (call.from ?? NO_SENDER).toLowerCase();
    const key = `calls:${sender}:${JSON.stringify(r.params[1])}`;
    const fold = folds.get(key) ?? { kind: 'calls', key, sender, tag: r.params[1], entries: [] };
    fold.entries.push(i);
    folds.set(key, fold);
  });
  const windowed = throughWindows(requests, [...folds.values()], codes);
  const planned = senders ? acrossSenders(requests, windowed) : windowed;
  // One request alone gains nothing from folding.
  return planned.filter((f) => f.entries.length > 1);
}

const word = (hex: string) => BigInt(hex).toString(16).padStart(WORD, '0');

/** The gas a folded call's sub-call gets: what it asked for, less what a separate call spends first. */
function callGas(call: PlainCall): bigint {
  const asked = call.gas === undefined ? BigInt(DEFAULT_CALL_GAS) : BigInt(call.gas);
  return asked > INTRINSIC_GAS ? asked - INTRINSIC_GAS : 0n;
}

function foldedRequest(fold: Fold, requests: readonly RpcRequest[]): RpcRequest {
  const gas = `0x${COALESCED_GAS.toString(16)}`;
  if (fold.kind === 'slots') {
    const data = `0x${fold.entries.map((i) => word(String(requests[i]!.params[1]))).join('')}`;
    return {
      method: 'eth_call',
      params: [{ to: fold.address, data, gas }, fold.tag, { [fold.address]: { code: slotReader } }],
    };
  }
  const code = { code: bundleArtifact.deployedBytecode };
  const windows = (g: CallsFold) =>
    g.window ? windowOverrides(g.window.address, g.window.code) : {};
  if (fold.kind === 'senders') {
    // The hub calls each sender's bundle, which makes that sender's calls.
    const inner = fold.groups.map((g) => ({
      target: g.sender,
      gas: BigInt(SENDER_GAS),
      data: bundleCall(g, requests),
    }));
    return {
      method: 'eth_call',
      params: [
        { from: HUB, to: HUB, data: encodeCallAll(inner), gas },
        fold.tag,
        Object.assign(
          Object.fromEntries([HUB, ...fold.groups.map((g) => g.sender)].map((a) => [a, code])),
          ...fold.groups.map(windows),
        ),
      ],
    };
  }
  return {
    method: 'eth_call',
    params: [
      { from: fold.sender, to: fold.sender, data: bundleCall(fold, requests), gas },
      fold.tag,
      { [fold.sender]: code, ...windows(fold) },
    ],
  };
}

/** A calls fold's plain calls (its slot reads through a window left out). */
function callsOf(fold: CallsFold, requests: readonly RpcRequest[]): PlainCall[] {
  return fold.entries.map((i) => plainCall(requests[i]!)).filter((c) => c !== null);
}

/** A calls fold's slot reads, in order. */
const slotsOf = (fold: CallsFold, requests: readonly RpcRequest[]) =>
  fold.entries.filter((i) => requests[i]!.method === 'eth_getStorageAt');

/**
 * A contract's slot reads folded into a bundle that calls that contract, where its code is
 * known: one eth_call for both (slot-window.ts). The slots are read after the calls.
 */
function throughWindows(
  requests: readonly RpcRequest[],
  folds: Fold[],
  codes: ReadonlyMap<string, string>,
): Fold[] {
  const out = [...folds];
  for (const slots of folds) {
    if (slots.kind !== 'slots' || !codes.has(slots.address)) continue;
    const host = out.find(
      (f): f is CallsFold =>
        f.kind === 'calls' &&
        !f.window &&
        JSON.stringify(f.tag) === JSON.stringify(slots.tag) &&
        callsOf(f, requests).some((c) => c.to.toLowerCase() === slots.address),
    );
    if (!host) continue;
    host.window = { address: slots.address, code: codes.get(slots.address)! };
    host.entries = [...host.entries, ...slots.entries];
    out.splice(out.indexOf(slots), 1);
  }
  return out;
}

/** The CallBundle's callAll of one sender's calls. */
function bundleCall(fold: CallsFold, requests: readonly RpcRequest[]): string {
  const calls: BundleCall[] = callsOf(fold, requests).map((c) => ({
    target: c.to,
    gas: callGas(c),
    data: c.data,
  }));
  if (fold.window) {
    const slots = slotsOf(fold, requests).map((i) => String(requests[i]!.params[1]));
    calls.push({
      target: fold.window.address,
      gas: BigInt(DEFAULT_CALL_GAS),
      data: windowRead(slots),
    });
  }
  return encodeCallAll(calls);
}

/** The folded answer split back into one outcome per request (undefined: send it alone). */
function unfold(
  fold: Fold,
  requests: readonly RpcRequest[],
  answer: string,
): (RpcOutcome<unknown> | undefined)[] {
  const hex = answer.startsWith('0x') ? answer.slice(2) : answer;
  if (fold.kind === 'slots') {
    if (hex.length !== fold.entries.length * WORD)
      throw new RpcError('bad-response', 'slot reader answered the wrong number of words');
    return fold.entries.map((_, k) => ({
      ok: true,
      result: `0x${hex.slice(k * WORD, (k + 1) * WORD)}`,
    }));
  }
  const answers = decodeCallAll(answer);
  if (fold.kind === 'senders')
    return fold.groups.flatMap((g, k) => {
      const a = answers[k];
      // A sender's bundle not made (or failed, which it never should): its calls go alone.
      if (!a?.ran || !a.ok) return g.entries.map(() => undefined);
      return unfold(g, requests, a.data);
    });
  const calls = callsOf(fold, requests);
  const outcomes = calls.map((c, k): RpcOutcome<unknown> | undefined => {
    const a = answers[k];
    if (!a?.ran) return undefined;
    const data = a.data;
    // All its gas used and no revert data: an exceptional halt (an INVALID opcode, out of gas),
    // which a node words in its own way (the reason some callers read): sent alone.
    if (!a.ok && data === '0x' && a.gasUsed >= callGas(c)) return undefined;
    return a.ok
      ? { ok: true, result: data }
      : { ok: false, error: new RpcError('revert', 'execution reverted', 3, data) };
  });
  const slots = slotsOf(fold, requests);
  const read = slots.length > 0 ? answers[calls.length] : undefined;
  const words = read?.ran && read.ok ? read.data.slice(2) : '';
  // The slots after the calls (entries list the calls first); a read not made is sent alone.
  const slotOutcomes = slots.map((_, k): RpcOutcome<unknown> | undefined =>
    words.length === slots.length * WORD
      ? { ok: true, result: `0x${words.slice(k * WORD, (k + 1) * WORD)}` }
      : undefined,
  );
  return [...outcomes, ...slotOutcomes];
}

/** Errors that say the node does not take the override parameter (or our use of it). */
const refusesOverrides = (error: RpcError) =>
  error.kind === 'unsupported' || error.kind === 'invalid-request';

export interface CoalescingOptions {
  /** Fold the calls of several senders into one eth_call (tx.origin is then not the sender). */
  acrossSenders?: boolean;
  /**
   * Gas of a folded call that named none (default 5,000,000). Lower for many cheap calls whose
   * failures may use all their gas (old code's invalid jumps): such a call is sent alone, without
   * gas, and gets the node's cap, while the fold's budget lasts for the others.
   */
  callGas?: number;
}

/** The request as folded: a plain eth_call that named no gas gets `gas`. */
function withGas(request: RpcRequest, gas: number | undefined): RpcRequest {
  if (gas === undefined || request.method !== 'eth_call') return request;
  const call = request.params[0] as Record<string, unknown> | null;
  if (!call || call.gas !== undefined || !plainCall(request)) return request;
  return {
    ...request,
    params: [{ ...call, gas: `0x${gas.toString(16)}` }, ...request.params.slice(1)],
  };
}

const KNOWING = Symbol('coalesce.knowing');
type Knowing = RpcClient & { [KNOWING]?: (codes: ReadonlyMap<string, string>) => RpcClient };

/**
 * The coalescing `client` told the runtime code of some contracts: their slot reads may then
 * ride in the same eth_call as calls to them (slot-window.ts). Any other client is returned as is.
 */
export function withCode(client: RpcClient, codes: Record<string, string>): RpcClient {
  const knowing = (client as Knowing)[KNOWING];
  if (!knowing) return client;
  return knowing(new Map(Object.entries(codes).map(([a, c]) => [a.toLowerCase(), c])));
}

export function createCoalescingRpc(rpc: RpcClient, options: CoalescingOptions = {}): RpcClient {
  let overrides = true;
  const clientKnowing = (codes: ReadonlyMap<string, string>): Knowing => ({
    urls: rpc.urls,
    request: rpc.request.bind(rpc),
    batch: (requests) => batch(requests, codes),
    [KNOWING]: (more) => clientKnowing(new Map([...codes, ...more])),
  });

  async function batch<T>(
    requests: RpcRequest[],
    codes: ReadonlyMap<string, string>,
  ): Promise<RpcOutcome<T>[]> {
    // Folded with the fold's gas; sent alone (unfolded, or again) as asked.
    const asFolded = requests.map((r) => withGas(r, options.callGas));
    const folds = overrides ? planFolds(asFolded, options.acrossSenders ?? false, codes) : [];
    if (folds.length === 0) return rpc.batch<T>(requests);
    const folded = new Set(folds.flatMap((f) => f.entries));
    const alone = requests.map((_, i) => i).filter((i) => !folded.has(i));
    const sent = [
      ...folds.map((f) => foldedRequest(f, asFolded)),
      ...alone.map((i) => requests[i]!),
    ];
    const answers = await rpc.batch<string>(sent);
    const out: (RpcOutcome<unknown> | undefined)[] = requests.map(() => undefined);
    alone.forEach((i, k) => {
      out[i] = answers[folds.length + k];
    });
    folds.forEach((fold, f) => {
      const answer = answers[f]!;
      if (answer.ok) {
        unfold(fold, asFolded, answer.result).forEach((o, k) => {
          out[fold.entries[k]!] = o;
        });
        return;
      }
      if (refusesOverrides(answer.error)) overrides = false;
      // A node failure is every folded request's failure; a refusal or a revert of the fold
      // itself (never an answer about the target) sends the requests alone.
      if (answer.error.retryable && answer.error.kind !== 'revert')
        for (const i of fold.entries) out[i] = answer;
    });
    const retry = out.map((o, i) => (o ? -1 : i)).filter((i) => i >= 0);
    if (retry.length > 0) {
      const again = await rpc.batch(retry.map((i) => requests[i]!));
      retry.forEach((i, k) => {
        out[i] = again[k];
      });
    }
    return out as RpcOutcome<T>[];
  }

  return clientKnowing(new Map());
}

/** The coalescing clients made over each client, by their options. */
const coalescingClients = new WeakMap<RpcClient, Map<string, RpcClient>>();

/**
 * The coalescing client over `rpc` with these options, made once and kept: it remembers a node
 * found to refuse state overrides, which a client made per job would ask again every time.
 */
export function coalescingOf(rpc: RpcClient, options: CoalescingOptions = {}): RpcClient {
  let byOptions = coalescingClients.get(rpc);
  if (!byOptions) {
    byOptions = new Map();
    coalescingClients.set(rpc, byOptions);
  }
  const key = JSON.stringify([options.acrossSenders ?? false, options.callGas ?? null]);
  let client = byOptions.get(key);
  if (!client) {
    client = createCoalescingRpc(rpc, options);
    byOptions.set(key, client);
  }
  return client;
}
