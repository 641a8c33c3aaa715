import { AbiCoder, Interface, keccak256, ParamType, type Result, toBeHex } from 'ethers';
import { loadArtifact } from '../../../contracts/artifacts.ts';
import type { RpcClient } from '../../evm/rpc.ts';
import { isDeadAddress } from '../access/index.ts';
import { addressFromLabel } from '../bytecode/index.ts';
import type { Capability, CapabilityReport, Judged } from '../capabilities/index.ts';
import { CLAIMS } from '../capabilities/index.ts';
import type { AdminFunction, Proof } from '../types.ts';
import { entrySlot } from '../walk/index.ts';

/**
 * Propose, then prove (docs/risk-model.md). The walk proposes powers (mint, leak, limit); here
 * each is run as the privileged caller the walk found, and its effect is read:
 *
 * - mint: the supply or the test holder's balance rises and no watched balance falls;
 * - leak: the test holder's balance falls, though it gave the caller no allowance;
 * - limit: the test holder's transfer that moved tokens before the call moves nothing after it.
 *
 * The PowerProver (contracts/src/service/PowerProver.sol) is placed by state override at every
 * candidate caller and at the test holder, whose balance is written into the token's balances
 * mapping; one eth_call runs every proof of the token, each in a sub-call that is undone.
 * Callers: an address the code compares the caller with, the live owner, and a role holder
 * written into the caller mapping the code looks the caller up in. A power that could not be
 * run, or ran without its effect, stays `unconfirmed` (with less weight, risk/weights.ts).
 */

/** Proofs per token (one sub-call each, in one eth_call). */
export const MAX_PROOFS = 16;
/** Gas of one proof's sub-call, and of the whole eth_call. */
const PROOF_GAS = 1_200_000;
const CALL_GAS = 30_000_000;
/** The amount the power's number arguments carry, and what the holder holds and moves. */
const PROOF_AMOUNT = 10n ** 18n;
const HOLDER_BALANCE = 10n ** 24n;
const HOLDER_MOVES = 1000n;

export const PROOF_HOLDER = addressFromLabel('token-monitor.proof.holder');
const PROOF_SINK = addressFromLabel('token-monitor.proof.sink');
const ROLE_HOLDER = addressFromLabel('token-monitor.proof.role-holder');
const STRANGER_CALLER = addressFromLabel('token-monitor.proof.stranger');

const prover = loadArtifact('PowerProver');
const proverInterface = new Interface(prover.abi);
const coder = AbiCoder.defaultAbiCoder();
const word = (v: bigint | string) => toBeHex(BigInt(v), 32);

export interface Caller {
  address: string;
  role: string;
  /** Storage the token needs for this caller (a role table entry). */
  storage?: Record<string, string>;
}

/** Arguments the prover can fill: the holder, then the sink; the amount; true; zero. */
export function proofCalldata(selector: string, args: string, flip = false): string | null {
  const types = args
    .split(',')
    .map((t) => t.trim())
    .filter((t) => t.length > 0);
  if (types.some((t) => !/^(address|bool|u?int\d{0,3}|bytes32)(\[\])?$/.test(t))) return null;
  let addresses = 0;
  const values = types.map((t) => {
    const base = t.replace(/\[\]$/, '');
    let v: unknown;
    if (base === 'address') v = addresses++ === 0 ? PROOF_HOLDER : PROOF_SINK;
    else if (base === 'bool') v = !flip;
    else if (base === 'bytes32') v = word(0n);
    else {
      const bits = BigInt(base.replace(/^u?int/, '') || '256');
      const max = (1n << (base.startsWith('u') ? bits : bits - 1n)) - 1n;
      v = PROOF_AMOUNT < max ? PROOF_AMOUNT : max;
    }
    return t.endsWith('[]') ? [v] : v;
  });
  const encoded = coder.encode(
    types.map((t) => ParamType.from(t)),
    values,
  );
  return `0x${selector}${encoded.slice(2)}`;
}

const ADDRESS_MASK = (1n << 160n) - 1n;
const slotKey = (slot: string, shift: number) => `${BigInt(slot)}|${shift}`;

/** The addresses held in the storage slots the functions' code compares the caller with. */
export async function storedCallers(
  rpc: RpcClient,
  input: { address: string; blockTag: string },
  judged: readonly Judged[],
): Promise<Map<string, string>> {
  const slots = new Map<string, { slot: string; shift: number }>();
  for (const j of judged)
    for (const c of j.verdict.checks)
      if (c.kind === 'stored-address' && c.slot)
        slots.set(slotKey(c.slot, c.shift ?? 0), { slot: c.slot, shift: c.shift ?? 0 });
  const out = new Map<string, string>();
  if (slots.size === 0) return out;
  const list = [...slots.values()];
  // The same reads the hidden-owner search makes: a prefetching client answers them from memory.
  const answers = await rpc.batch<string>(
    list.map((s) => ({
      method: 'eth_getStorageAt',
      params: [input.address, toBeHex(BigInt(s.slot), 32), input.blockTag],
    })),
  );
  list.forEach((s, i) => {
    const a = answers[i];
    if (!a?.ok || !/^0x[0-9a-fA-F]*$/.test(a.result)) return;
    const value = (BigInt(a.result) >> BigInt(s.shift)) & ADDRESS_MASK;
    const address = toBeHex(value, 20).toLowerCase();
    if (value !== 0n && !isDeadAddress(address)) out.set(slotKey(s.slot, s.shift), address);
  });
  return out;
}

/** Who may call `fn`: from its caller checks, the owner, a role holder, else a stranger. */
export function callersOf(
  judged: Judged | undefined,
  owner: string | null,
  stored: ReadonlyMap<string, string>,
): Caller[] {
  const out: Caller[] = [];
  for (const c of judged?.verdict.checks ?? []) {
    if (c.kind === 'hardcoded-address' && c.address)
      out.push({ address: c.address.toLowerCase(), role: 'the address the code names' });
    const held =
      c.kind === 'stored-address' && c.slot ? stored.get(slotKey(c.slot, c.shift ?? 0)) : undefined;
    if (held) out.push({ address: held, role: `the address stored in slot ${c.slot}` });
    if (c.kind === 'caller-mapping' && c.mapping) {
      const slot = keccak256(`${word(ROLE_HOLDER)}${word(c.mapping).slice(2)}`);
      out.push({
        address: ROLE_HOLDER,
        role: `a holder of the role table at slot ${c.mapping}`,
        storage: { [slot]: word(1n) },
      });
    }
  }
  if (owner) out.push({ address: owner, role: 'the owner' });
  if (out.length === 0) out.push({ address: STRANGER_CALLER, role: 'a stranger' });
  const seen = new Set<string>();
  return out.filter((c) => !seen.has(c.address) && seen.add(c.address) !== undefined);
}

interface Planned {
  fn: AdminFunction;
  capability: Capability;
  caller: Caller;
  data: string;
  /** The same call with its booleans false, made first (a switch opened, then closed). */
  setup?: string;
}

export interface ProofInput {
  address: string;
  blockTag: string;
  owner: string | null;
  judged: readonly Judged[];
  report: CapabilityReport | null;
  admin: readonly AdminFunction[];
}

/** The proof of every admin function claiming a power, by selector (the others get none). */
export async function provePowers(rpc: RpcClient, input: ProofInput): Promise<Map<string, Proof>> {
  const proofs = new Map<string, Proof>();
  const owner = input.owner && !isDeadAddress(input.owner) ? input.owner.toLowerCase() : null;
  const planned: Planned[] = [];
  const claimed = input.judged.filter((j) => j.entry && CLAIMS[j.entry.family]);
  const stored = await storedCallers(rpc, input, claimed);
  for (const fn of input.admin) {
    const capability = CLAIMS[fn.family];
    if (!capability) continue;
    const args = fn.signature.slice(fn.signature.indexOf('(') + 1, -1);
    const data = proofCalldata(fn.selector, args);
    if (data === null) {
      proofs.set(fn.selector, {
        status: 'unconfirmed',
        detail: `not executed: ${fn.signature} takes arguments the prover cannot fill`,
      });
      continue;
    }
    const judged = input.judged.find((j) => j.fn.selector === fn.selector);
    // A limit switched by a boolean is also tried as a switch, each way: the call with the
    // booleans one way first (transfers closed at the start, before a launch, are opened), then
    // the other (and they close again).
    const flipped =
      capability === 'limit' && /\bbool\b/.test(args)
        ? proofCalldata(fn.selector, args, true)
        : null;
    const variants = flipped
      ? [{ data }, { data, setup: flipped }, { data: flipped, setup: data }]
      : [{ data }];
    for (const caller of callersOf(judged, owner, stored))
      for (const v of variants)
        if (planned.length < MAX_PROOFS) planned.push({ fn, capability, caller, ...v });
  }
  if (planned.length === 0) return proofs;
  const outcomes = await runProofs(rpc, input, planned);
  planned.forEach((p, i) => {
    const seen = proofs.get(p.fn.selector);
    if (seen?.status === 'proven') return;
    const proof = judge(p, outcomes[i] ?? null, input.report);
    if (!seen || proof.status === 'proven') proofs.set(p.fn.selector, proof);
  });
  for (const fn of input.admin)
    if (CLAIMS[fn.family] && !proofs.has(fn.selector))
      proofs.set(fn.selector, {
        status: 'unconfirmed',
        detail: `not executed: more than ${MAX_PROOFS} proofs for one token`,
      });
  return proofs;
}

interface Outcome {
  ran: boolean;
  ok: boolean;
  data: string;
  supplyBefore: bigint;
  supplyAfter: bigint;
  before: bigint[];
  after: bigint[];
  movedBefore: boolean;
  movedAfter: boolean;
}

async function runProofs(
  rpc: RpcClient,
  input: ProofInput,
  planned: readonly Planned[],
): Promise<(Outcome | null)[]> {
  const storage: Record<string, string> = {};
  const balances = input.report?.layout.balances ?? null;
  if (balances !== null) storage[entrySlot(balances, BigInt(PROOF_HOLDER))] = word(HOLDER_BALANCE);
  for (const p of planned) Object.assign(storage, p.caller.storage ?? {});
  const code = { code: prover.deployedBytecode };
  const overrides: Record<string, unknown> = { [PROOF_HOLDER]: code };
  for (const p of planned) overrides[p.caller.address] = code;
  overrides[input.address] = { stateDiff: storage };
  const watch = (p: Planned) => [PROOF_HOLDER, PROOF_SINK, p.caller.address];
  const data = proverInterface.encodeFunctionData('proveAll', [
    input.address,
    planned.map((p) => ({
      caller: p.caller.address,
      data: p.data,
      watch: watch(p),
      holder: PROOF_HOLDER,
      sink: PROOF_SINK,
      amount: HOLDER_MOVES,
      setup: p.setup ?? '0x',
    })),
    PROOF_GAS,
  ]);
  const [answer] = await rpc.batch<string>([
    {
      method: 'eth_call',
      params: [
        { from: PROOF_HOLDER, to: PROOF_HOLDER, data, gas: toBeHex(CALL_GAS) },
        input.blockTag,
        overrides,
      ],
    },
  ]);
  if (!answer?.ok) return planned.map(() => null);
  const [rows] = proverInterface.decodeFunctionResult('proveAll', answer.result) as Result;
  return (rows as Result[]).map((r) => ({
    ran: Boolean(r[0]),
    ok: Boolean(r[1]),
    data: String(r[2]),
    supplyBefore: BigInt(r[3]),
    supplyAfter: BigInt(r[4]),
    before: (r[5] as bigint[]).map(BigInt),
    after: (r[6] as bigint[]).map(BigInt),
    movedBefore: Boolean(r[7]),
    movedAfter: Boolean(r[8]),
  }));
}

const short = (data: string) => (data.length > 2 ? ` (${data.slice(0, 10)}…)` : '');

/** What one run shows about the power it claims. */
function judge(p: Planned, o: Outcome | null, report: CapabilityReport | null): Proof {
  const call = `${p.fn.signature} called by ${p.caller.role} ${p.caller.address}${p.setup ? ' (after the same call with its booleans the other way)' : ''}`;
  if (!o?.ran)
    return { status: 'unconfirmed', detail: `not executed: the proof call failed for ${call}` };
  if (!o.ok)
    return {
      status: 'unconfirmed',
      detail: `${call} reverted${short(o.data)}: the power needs state that is not there, or another caller`,
    };
  const before = {
    total_supply: o.supplyBefore.toString(),
    holder_balance: o.before[0]!.toString(),
    holder_transfer: o.movedBefore ? 'moves' : 'fails',
  };
  const after = {
    total_supply: o.supplyAfter.toString(),
    holder_balance: o.after[0]!.toString(),
    holder_transfer: o.movedAfter ? 'moves' : 'fails',
  };
  const numbers = `supply ${o.supplyBefore} → ${o.supplyAfter}, the holder's balance ${o.before[0]} → ${o.after[0]}`;
  const fell = o.before.some((b, i) => o.after[i]! < b);
  const rose = o.supplyAfter > o.supplyBefore || o.after.some((a, i) => a > o.before[i]!);
  if (p.capability === 'mint' && rose && !fell)
    return { status: 'proven', detail: `${call}: ${numbers}, no balance fell`, before, after };
  if (p.capability === 'leak' && o.after[0]! < o.before[0]!)
    return {
      status: 'proven',
      detail: `${call}: ${numbers}, the holder gave the caller no allowance`,
      before,
      after,
    };
  if (p.capability === 'limit' && o.movedBefore && !o.movedAfter)
    return {
      status: 'proven',
      detail: `${call}: the holder's transfer moved tokens before the call and moves none after it`,
      before,
      after,
    };
  const why =
    p.capability === 'limit' && !o.movedBefore
      ? report?.layout.balances == null
        ? "the holder's balance could not be written (balances mapping unknown)"
        : "the holder's transfer fails already before the call"
      : numbers;
  return { status: 'unconfirmed', detail: `${call} ran without the effect: ${why}`, before, after };
}
