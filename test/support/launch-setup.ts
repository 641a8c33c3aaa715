import { Interface, parseEther, toBeHex } from 'ethers';
import { addressFromLabel } from '../../src/analysis/bytecode/index.ts';
import type { TestChain } from './chain.ts';

/**
 * The launch setup of a development-set entry, replayed after its constructor deployment. The
 * study's labels were confirmed on chain after that setup, which each entry's `notes` records in
 * free text after "Setup used for on-chain checks:" (fixture README): calls `name(types) [json
 * args]` (optionally `: ok`, optionally `called from 0x… (…, impersonated)`), "deployer funded by
 * the holder set in the source 0x… (impersonated transfer)", "deployer bought tokens: name(),
 * sent 1.0 ETH" and "deployer sent N base units to each of two holders". The notes were written
 * with 0xf39F…2266 (Anvil's first account) or `<deployer>` for the deployer; both are replaced by
 * the account the harness deploys from. Nothing here knows an entry: every step comes from the
 * notes' text.
 */

const SETUP_MARKER = 'Setup used for on-chain checks:';
/** The deployer as the notes write it. */
const NOTES_DEPLOYER = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266';
const DEPLOYER_PLACEHOLDER = '<deployer>';
/** The two holders the deployer sends to: fixed, and no account the harness signs with. */
export const SETUP_HOLDERS = [
  addressFromLabel('token-monitor.backdoor-set.holder-1'),
  addressFromLabel('token-monitor.backdoor-set.holder-2'),
] as const;
const SETUP_GAS = 5_000_000n;
const IMPERSONATED_BALANCE = parseEther('10');
const RECEIPT_POLL_MS = 20;
const RECEIPT_TIMEOUT_MS = 30_000;

/** One transaction of the setup. `from` null: the deployer; `signature` null: a plain ETH send. */
export interface SetupStep {
  /** The step as the notes record it, for the report. */
  text: string;
  from: string | null;
  signature: string | null;
  args: unknown[];
  value: bigint;
}

/** A step whose amount the notes do not record (funding by a source holder with no sends after). */
export interface SkippedStep {
  text: string;
  reason: string;
}

export interface LaunchSetup {
  steps: SetupStep[];
  skipped: SkippedStep[];
}

export interface StepOutcome {
  text: string;
  ok: boolean;
  /** Why it failed (reverted, or could not be sent), or null. */
  error: string | null;
}

/** The setup sentence(s) of an entry's notes: everything after the marker, or null. */
export function setupText(notes: string): string | null {
  const at = notes.indexOf(SETUP_MARKER);
  return at < 0 ? null : notes.slice(at + SETUP_MARKER.length);
}

/** The end (exclusive) of the balanced JSON array starting at `start`, or -1. */
function arrayEnd(text: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '[') depth++;
    else if (c === ']') {
      depth--;
      if (depth === 0) return i + 1;
    }
  }
  return -1;
}

function substituteDeployer(value: unknown, deployer: string): unknown {
  if (Array.isArray(value)) return value.map((v) => substituteDeployer(v, deployer));
  if (typeof value === 'string') {
    const lower = value.toLowerCase();
    if (lower === NOTES_DEPLOYER || lower === DEPLOYER_PLACEHOLDER) return deployer;
  }
  return value;
}

const CALL = /([A-Za-z_$][\w$]*)\(([\w,[\]\s]*)\)/y;
const OK_SUFFIX = /\s*:\s*ok\b/y;
const CALLED_FROM = /\s*called from (0x[0-9a-fA-F]{40})/y;
const BOUGHT_VALUE = /,\s*sent ([\d.]+) ETH/y;
const HOLDER_SENDS = /deployer sent (\d+) base units to each of two holders/y;
const FUNDED_BY_HOLDER =
  /deployer funded by the holder set in the source (0x[0-9a-fA-F]{40}) \(impersonated transfer\)/y;

function matchAt(re: RegExp, text: string, at: number): RegExpExecArray | null {
  re.lastIndex = at;
  return re.exec(text);
}

/**
 * The transactions of an entry's recorded launch setup, in the order the notes give them, with
 * the deployer of the notes replaced by `deployer`. Entries without a setup give no steps.
 */
export function parseLaunchSetup(notes: string, deployer: string): LaunchSetup {
  const text = setupText(notes);
  const steps: SetupStep[] = [];
  const skipped: SkippedStep[] = [];
  if (text === null) return { steps, skipped };
  /** Funding transfers from a source holder wait for the amount the deployer then sends. */
  const pendingFunding: { holder: string; text: string; index: number }[] = [];
  let i = 0;
  while (i < text.length) {
    const funded = matchAt(FUNDED_BY_HOLDER, text, i);
    if (funded) {
      pendingFunding.push({
        holder: funded[1]!.toLowerCase(),
        text: funded[0],
        index: steps.length,
      });
      i = FUNDED_BY_HOLDER.lastIndex;
      continue;
    }
    const sends = matchAt(HOLDER_SENDS, text, i);
    if (sends) {
      const amount = BigInt(sends[1]!);
      // The source holder funds the deployer with what it then sends, before the sends.
      for (const f of pendingFunding.splice(0).reverse()) {
        steps.splice(f.index, 0, {
          text: `${f.text}: transfer(address,uint256) [deployer, ${2n * amount}]`,
          from: f.holder,
          signature: 'transfer(address,uint256)',
          args: [deployer, 2n * amount],
          value: 0n,
        });
      }
      for (const holder of SETUP_HOLDERS) {
        steps.push({
          text: `${sends[0]}: transfer(address,uint256) [${holder}, ${amount}]`,
          from: null,
          signature: 'transfer(address,uint256)',
          args: [holder, amount],
          value: 0n,
        });
      }
      i = HOLDER_SENDS.lastIndex;
      continue;
    }
    const call = matchAt(CALL, text, i);
    if (!call) {
      i++;
      continue;
    }
    const signature = `${call[1]}(${call[2]!.replace(/\s+/g, '')})`;
    let end = CALL.lastIndex;
    while (text[end] === ' ') end++;
    if (text[end] === '[') {
      const close = arrayEnd(text, end);
      if (close < 0) throw new Error(`unbalanced arguments after ${signature}`);
      const args = substituteDeployer(JSON.parse(text.slice(end, close)), deployer) as unknown[];
      end = close;
      const ok = matchAt(OK_SUFFIX, text, end);
      if (ok) end = OK_SUFFIX.lastIndex;
      const from = matchAt(CALLED_FROM, text, end);
      if (from) end = CALLED_FROM.lastIndex;
      steps.push({
        text: text.slice(call.index, end).trim(),
        from: from ? from[1]!.toLowerCase() : null,
        signature,
        args,
        value: 0n,
      });
      i = end;
      continue;
    }
    const bought = matchAt(BOUGHT_VALUE, text, CALL.lastIndex);
    if (bought && /bought tokens:\s*$/.test(text.slice(0, call.index))) {
      // "deployer bought tokens: openIco(), sent 1.0 ETH": the call, then ETH to the token.
      steps.push({ text: call[0], from: null, signature, args: [], value: 0n });
      steps.push({
        text: bought[0].replace(/^,\s*/, ''),
        from: null,
        signature: null,
        args: [],
        value: parseEther(bought[1]!),
      });
      i = BOUGHT_VALUE.lastIndex;
      continue;
    }
    // A name in parentheses without arguments elsewhere in prose: not a step.
    i = CALL.lastIndex;
  }
  for (const f of pendingFunding)
    skipped.push({
      text: f.text,
      reason: 'the notes record no amount (no sends to holders follow)',
    });
  return { steps, skipped };
}

async function receiptStatus(chain: TestChain, hash: string): Promise<string> {
  const deadline = Date.now() + RECEIPT_TIMEOUT_MS;
  while (Date.now() < deadline) {
    const r = (await chain.provider.send('eth_getTransactionReceipt', [hash])) as {
      status: string;
    } | null;
    if (r) return r.status;
    await new Promise((resolve) => setTimeout(resolve, RECEIPT_POLL_MS));
  }
  throw new Error(`transaction ${hash} not mined`);
}

function calldata(step: SetupStep): string {
  if (step.signature === null) return '0x';
  const iface = new Interface([`function ${step.signature}`]);
  return iface.encodeFunctionData(step.signature, step.args);
}

/** Sends one step from the deployer, or from an impersonated account the notes name. */
async function sendStep(chain: TestChain, token: string, step: SetupStep): Promise<string> {
  const data = calldata(step);
  if (step.from === null || step.from === chain.account) {
    const sent = await chain.signer.sendTransaction({
      to: token,
      data,
      value: step.value,
      gasLimit: SETUP_GAS,
    });
    return sent.hash;
  }
  await chain.provider.send('anvil_impersonateAccount', [step.from]);
  try {
    const balance = BigInt(await chain.provider.send('eth_getBalance', [step.from, 'latest']));
    if (balance < IMPERSONATED_BALANCE)
      await chain.provider.send('anvil_setBalance', [step.from, toBeHex(IMPERSONATED_BALANCE)]);
    return (await chain.provider.send('eth_sendTransaction', [
      { from: step.from, to: token, data, value: toBeHex(step.value), gas: toBeHex(SETUP_GAS) },
    ])) as string;
  } finally {
    await chain.provider.send('anvil_stopImpersonatingAccount', [step.from]);
  }
}

/**
 * Replays the steps in order on the deployed token. A step that reverts (or cannot be encoded or
 * sent) is recorded and the replay goes on: the entry is analysed whatever the setup reached.
 */
export async function replayLaunchSetup(
  chain: TestChain,
  token: string,
  steps: readonly SetupStep[],
): Promise<StepOutcome[]> {
  const out: StepOutcome[] = [];
  for (const step of steps) {
    try {
      const status = await receiptStatus(chain, await sendStep(chain, token, step));
      out.push({
        text: step.text,
        ok: status === '0x1',
        error: status === '0x1' ? null : 'reverted',
      });
    } catch (error) {
      // A transaction that never reached the chain leaves the deployer's nonce count ahead.
      chain.signer.reset();
      out.push({ text: step.text, ok: false, error: (error as Error).message.split('\n')[0]! });
    }
  }
  return out;
}
