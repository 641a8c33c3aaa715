import { Interface } from 'ethers';
import {
  HOOK_CALLBACKS,
  type HookCallback,
  hookCallbackSelector,
  type V4PoolKey,
} from '../../dex/v4/index.ts';
import { hasOpcode } from '../../evm/bytecode.ts';
import type { RpcClient } from '../../evm/rpc.ts';
import { resolveProxy } from '../access/index.ts';
import {
  ARGUMENT_VARIANTS,
  addressFromLabel,
  extractFunctions,
  normalizeCode,
  probeCalldata,
} from '../bytecode/index.ts';
import type { Evidence } from '../types.ts';
import {
  type CallerCheck,
  type PathTrace,
  prepareCode,
  type Sym,
  slotShape,
  walk,
} from '../walk/index.ts';

/**
 * Can anyone change what a V4 hook does to swaps? Two ways, both seen in the hook's code: it is an
 * upgradeable proxy (its implementation can be replaced), or a function only a privileged caller
 * may use writes storage that the hook's swap callbacks read (a fee, a switch, a list). The
 * callbacks are walked symbolically (walk/interpreter.ts) as the PoolManager calls them, buying and
 * selling; every other state-changing function with both argument variants; a write on a path that
 * passed a caller check to a slot (or mapping) a callback reads is such a setting. Checks against
 * the PoolManager (the callbacks' own guard) do not make a function privileged.
 */

const DELEGATECALL = 0xf4;
/** Steps per walked function: hooks are small; via-IR code can be long-winded. */
const WALK_BUDGET = 20_000;
const MAX_PATHS = 64;
/** Functions walked per hook (beyond the callbacks). */
const MAX_FUNCTIONS = 48;
const SWAP_CALLBACKS: readonly HookCallback[] = ['beforeSwap', 'afterSwap'];
const PROBE_SENDER = addressFromLabel('token-monitor.hook.swapper');
const MIN_PRICE_LIMIT = 4295128740n;
const MAX_PRICE_LIMIT = 1461446703485210103287273052203988822378723970341n;
const SWAP_AMOUNT = 10n ** 18n;
/** Caller checks that prove a privileged caller (a hard-coded address only when it is not the PoolManager). */
const PRIVILEGE_KINDS = new Set<CallerCheck['kind']>([
  'stored-address',
  'hardcoded-address',
  'caller-mapping',
  'role-mapping',
  'caller-hash',
]);

const callbacks = new Interface(SWAP_CALLBACKS.map((c) => `function ${HOOK_CALLBACKS[c]}`));

export interface OwnerSetting {
  /** The function (selector, 8 hex digits) that changes the state. */
  selector: string;
  /** The slot written (0x hex), or the mapping's base slot. */
  slot: string;
  /** Who may call it, as the code checks. */
  guard: string;
  read_by: HookCallback;
}

export interface HookControl {
  has_code: boolean;
  upgradeable: boolean;
  owner_settings: OwnerSetting[];
  evidence: Evidence[];
  /** Every path of the callbacks was followed within the budget (false: settings may be missing). */
  complete: boolean;
}

/** A slot read or written, as a key: a fixed slot, or the base of the mapping it is an entry of. */
function slotKey(slot: Sym): string | null {
  if (typeof slot === 'bigint') return `0x${slot.toString(16)}`;
  const shape = slotShape(slot);
  if (!shape) return null;
  return `0x${(shape.kind === 'slot' ? shape.slot : shape.base).toString(16)}`;
}

/** The callback's call data as the PoolManager would send it for a buy or a sell. */
function callbackCalldata(callback: HookCallback, key: V4PoolKey, zeroForOne: boolean): string {
  const keyTuple = [key.currency0, key.currency1, key.fee, key.tickSpacing, key.hooks];
  const params = [zeroForOne, -SWAP_AMOUNT, zeroForOne ? MIN_PRICE_LIMIT : MAX_PRICE_LIMIT];
  // The swap's delta: the input currency paid (negative), the other received.
  const delta = zeroForOne
    ? (BigInt.asUintN(128, -SWAP_AMOUNT) << 128n) | SWAP_AMOUNT
    : (SWAP_AMOUNT << 128n) | BigInt.asUintN(128, -SWAP_AMOUNT);
  const args =
    callback === 'afterSwap'
      ? [PROBE_SENDER, keyTuple, params, BigInt.asIntN(256, delta), '0x']
      : [PROBE_SENDER, keyTuple, params, '0x'];
  return callbacks.encodeFunctionData(callback, args);
}

const successful = (t: PathTrace) => t.end === 'stop' || t.end === 'return';

function privilegedGuard(guards: readonly CallerCheck[], poolManager: string): CallerCheck | null {
  return (
    guards.find(
      (g) =>
        PRIVILEGE_KINDS.has(g.kind) &&
        !(g.kind === 'hardcoded-address' && g.address?.toLowerCase() === poolManager),
    ) ?? null
  );
}

function describeGuard(g: CallerCheck): string {
  const who = g.origin ? 'tx.origin' : 'msg.sender';
  if (g.kind === 'stored-address')
    return `${who} must be the address stored in slot ${g.slot ?? '(computed)'}`;
  if (g.kind === 'hardcoded-address') return `${who} must be ${g.address}`;
  return `${who} must be listed in the mapping at slot ${g.mapping ?? g.slot ?? '(computed)'}`;
}

/** Slots the swap callbacks read (buying and selling), and whether every path was walked. */
function callbackReads(code: ReturnType<typeof prepareCode>, present: Set<string>, key: V4PoolKey) {
  const reads = new Map<string, HookCallback>();
  let complete = true;
  for (const callback of SWAP_CALLBACKS) {
    if (!present.has(hookCallbackSelector(callback))) continue;
    for (const zeroForOne of [true, false]) {
      const result = walk(code, callbackCalldata(callback, key, zeroForOne), {
        record: true,
        budget: WALK_BUDGET,
        maxPaths: MAX_PATHS,
      });
      complete &&= result.complete;
      for (const trace of result.traces)
        for (const read of trace.reads) {
          const k = slotKey(read);
          if (k && !reads.has(k)) reads.set(k, callback);
        }
    }
  }
  return { reads, complete };
}

/** Privileged writes to slots the callbacks read: the owner's levers on swaps. */
function ownerSettings(hex: string, key: V4PoolKey, poolManager: string) {
  const code = prepareCode(hex);
  const functions = extractFunctions(hex).functions;
  const present = new Set(functions.map((f) => f.selector));
  const { reads, complete } = callbackReads(code, present, key);
  const callbackSelectors = new Set(SWAP_CALLBACKS.map(hookCallbackSelector));
  const settings = new Map<string, OwnerSetting>();
  const candidates = functions
    .filter((f) => !callbackSelectors.has(f.selector))
    .filter((f) => f.state_mutability !== 'view' && f.state_mutability !== 'pure')
    .slice(0, MAX_FUNCTIONS);
  for (const f of candidates) {
    for (const variant of ARGUMENT_VARIANTS) {
      const result = walk(code, probeCalldata(f.selector, f.arguments, variant), {
        record: true,
        budget: WALK_BUDGET,
        maxPaths: MAX_PATHS,
      });
      for (const trace of result.traces.filter(successful)) {
        const guard = privilegedGuard(trace.guards, poolManager);
        if (!guard) continue;
        for (const w of trace.writes) {
          const slot = slotKey(w.slot);
          const readBy = slot ? reads.get(slot) : undefined;
          if (!slot || !readBy || settings.has(`${f.selector}:${slot}`)) continue;
          settings.set(`${f.selector}:${slot}`, {
            selector: f.selector,
            slot,
            guard: describeGuard(guard),
            read_by: readBy,
          });
        }
      }
    }
  }
  return { settings: [...settings.values()], complete };
}

/**
 * The control analysis of the hook at `address` (runtime `code`) of the pool `key` in
 * `poolManager`. A proxy is followed to its implementation (one eth_getStorageAt batch and its
 * code), whose code is then walked; node failures throw.
 */
export async function analyzeHookControl(
  rpc: RpcClient,
  input: { address: string; code: string; poolManager: string; key: V4PoolKey },
): Promise<HookControl> {
  const hex = normalizeCode(input.code) ?? '';
  if (hex.length === 0)
    return {
      has_code: false,
      upgradeable: false,
      owner_settings: [],
      evidence: [],
      complete: true,
    };
  const evidence: Evidence[] = [];
  let walked = hex;
  let upgradeable = false;
  if (hasOpcode(hex, DELEGATECALL)) {
    const proxy = await resolveProxy(rpc, { address: input.address, code: input.code });
    if (proxy.hops.length > 0) {
      upgradeable = proxy.hops.some((h) => h.kind !== 'eip1167');
      evidence.push(
        ...proxy.info.evidence.map((e) =>
          upgradeable ? { ...e, detail: `hook ${input.address}: ${e.detail}` } : e,
        ),
      );
      walked = normalizeCode(proxy.implementationCode ?? '') || hex;
    }
  }
  const { settings, complete } = ownerSettings(walked, input.key, input.poolManager.toLowerCase());
  for (const s of settings)
    evidence.push({
      kind: 'bytecode',
      selector: s.selector,
      detail: `0x${s.selector} of hook ${input.address} writes slot ${s.slot} (${s.guard}), which its ${s.read_by} callback reads`,
    });
  return { has_code: true, upgradeable, owner_settings: settings, evidence, complete };
}
