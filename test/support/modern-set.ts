import { readFileSync } from 'node:fs';
import { ContractFactory, Interface, type InterfaceAbi } from 'ethers';
import { createRpcClient } from '../../infra/rpc/index.ts';
import { createChainReader } from '../../src/evm/chain-reader.ts';
import { analyseToken, type EntryResult } from './backdoor-accuracy.ts';
import { CAPABILITIES, type CapabilityLabel, type Score, score } from './backdoors.ts';
import { type TestChain, waitMined } from './chain.ts';
import { type Compiled, compileSolidityAsync, type ModernSolc } from './solc.ts';

/**
 * The modern development set (test/fixtures/modern): tokens written the way 2024-2026 launches
 * are (OpenZeppelin 5 `_update` overrides, Solady, solmate, ERC-7201 and OpenZeppelin 4
 * upgradeable ownership, AccessControl, UUPS and transparent proxies), each backdoored token with
 * an honest twin that has the same names and checks without the power; labels in manifest.json.
 * Every token is compiled by every build (solc 0.8.20 to 0.8.30, optimizer on and off, via-IR on
 * and off), deployed on Anvil with its constructor (behind its proxy, initialised), the owner's
 * `after` calls sent, and analysed as the accuracy runs analyse (analyseToken).
 */

const MODERN_DIR = new URL('../fixtures/modern/', import.meta.url);

export interface ModernToken {
  contract: string;
  source: string;
  family: string;
  labels: Record<CapabilityLabel, boolean>;
  /** The honest twin of a backdoored token. */
  twin?: string;
  proxy?: 'uups' | 'transparent';
  /** Calls the deployer sends after deployment (`$deployer` stands for its address). */
  after?: { fn: string; args?: string[] }[];
  /** The owner can swap the contract that decides transfers (GoPlus's `external_call`). */
  external_call?: boolean;
}

interface Manifest {
  sources: Record<string, { min_solc: string }>;
  proxies: string;
  tokens: ModernToken[];
}

export interface ModernBuild {
  label: string;
  version: ModernSolc;
  optimize: boolean;
  viaIR: boolean;
}

/** solc 0.8.20 to 0.8.30, the optimizer on and off, via-IR on and off. */
export const MODERN_BUILDS: readonly ModernBuild[] = [
  { label: 'solc 0.8.20, optimizer', version: '0.8.20', optimize: true, viaIR: false },
  { label: 'solc 0.8.24, no optimizer', version: '0.8.24', optimize: false, viaIR: false },
  { label: 'solc 0.8.26, via-IR, optimizer', version: '0.8.26', optimize: true, viaIR: true },
  { label: 'solc 0.8.30, optimizer', version: '0.8.30', optimize: true, viaIR: false },
  { label: 'solc 0.8.30, via-IR, no optimizer', version: '0.8.30', optimize: false, viaIR: true },
];

export function loadModernSet(): Manifest {
  return JSON.parse(readFileSync(new URL('manifest.json', MODERN_DIR), 'utf8')) as Manifest;
}

const sourceText = (name: string) => readFileSync(new URL(`${name}.sol`, MODERN_DIR), 'utf8');

const minor = (version: string) => Number(version.split('.')[2]);

/** Each source's contracts under one build; a source that needs a newer solc is left out. */
export async function compileModernBuild(
  manifest: Manifest,
  build: ModernBuild,
): Promise<Map<string, Compiled>> {
  const out = new Map<string, Compiled>();
  for (const [name, { min_solc }] of Object.entries(manifest.sources)) {
    if (minor(build.version) < minor(min_solc)) continue;
    const contracts = await compileSolidityAsync(sourceText(name), build);
    for (const [contract, c] of Object.entries(contracts)) out.set(contract, c);
  }
  return out;
}

/** The proxies, compiled once with the bundled solc: only the implementations vary by build. */
export function compileProxies(manifest: Manifest): Promise<Record<string, Compiled>> {
  return compileSolidityAsync(sourceText(manifest.proxies));
}

async function deploy(chain: TestChain, c: Compiled, args: unknown[] = []): Promise<string> {
  const factory = new ContractFactory(c.abi as InterfaceAbi, c.bytecode, chain.signer);
  const tx = await factory.getDeployTransaction(...args);
  const receipt = await waitMined(
    chain.provider,
    chain.signer.sendTransaction({ ...tx, gasLimit: 25_000_000 }),
  );
  if (!receipt.contractAddress) throw new Error('no contract deployed');
  return receipt.contractAddress.toLowerCase();
}

/** Deploys one token (behind its proxy, initialised) and sends its `after` calls. */
export async function placeModernToken(
  chain: TestChain,
  token: ModernToken,
  contracts: Map<string, Compiled>,
  proxies: Record<string, Compiled>,
): Promise<string> {
  const c = contracts.get(token.contract);
  if (!c) throw new Error(`${token.contract} not compiled`);
  const implementation = await deploy(chain, c);
  let address = implementation;
  if (token.proxy) {
    const init = new Interface(c.abi as InterfaceAbi).encodeFunctionData('initialize');
    address =
      token.proxy === 'uups'
        ? await deploy(chain, proxies.UupsProxy!, [implementation, init])
        : await deploy(chain, proxies.TransparentProxy!, [implementation, chain.account, init]);
  }
  const abi = new Interface(c.abi as InterfaceAbi);
  for (const call of token.after ?? []) {
    const args = (call.args ?? []).map((a) => (a === '$deployer' ? chain.account : a));
    const data = abi.encodeFunctionData(call.fn, args);
    // waitMined throws on a revert.
    await waitMined(
      chain.provider,
      chain.signer.sendTransaction({ to: address, data, gasLimit: 5_000_000 }),
    );
  }
  return address;
}

export interface ModernResult extends Omit<EntryResult, 'mode' | 'setup'> {
  /** Deployed with its constructor (behind its proxy), then its own `after` calls. */
  mode: 'constructor';
  build: string;
  token: ModernToken;
}

/** Places and analyses every token of the set under one build. */
export async function runModernBuild(
  chain: TestChain,
  manifest: Manifest,
  build: ModernBuild,
  contracts: Map<string, Compiled>,
  proxies: Record<string, Compiled>,
): Promise<ModernResult[]> {
  const rpc = createRpcClient({ urls: [chain.anvil.rpcUrl] });
  const reader = createChainReader(rpc);
  const out: ModernResult[] = [];
  for (const token of manifest.tokens) {
    if (!contracts.has(token.contract)) continue;
    const address = await placeModernToken(chain, token, contracts, proxies);
    const analysed = await analyseToken({ rpc, reader }, chain.anvil.chainId, address);
    out.push({
      ...analysed,
      id: `${token.contract} (${build.label})`,
      name: token.contract,
      mode: 'constructor',
      build: build.label,
      token,
    });
  }
  return out;
}

export interface ModernScores {
  /** Every result counted. */
  all: Score[];
  named: Score[];
  misses: {
    id: string;
    family: string;
    label: CapabilityLabel;
    kind: 'missed' | 'false alarm';
  }[];
}

export function scoreModernSet(results: readonly ModernResult[]): ModernScores {
  const misses: ModernScores['misses'] = [];
  const all: Score[] = [];
  const named: Score[] = [];
  for (const c of CAPABILITIES) {
    const pairs = results.map((r) => ({ truth: r.token.labels[c], observed: r.observed[c], r }));
    for (const p of pairs) {
      if (p.truth === p.observed) continue;
      misses.push({
        id: p.r.id,
        family: p.r.token.family,
        label: c,
        kind: p.truth ? 'missed' : 'false alarm',
      });
    }
    all.push(score(c, pairs));
    named.push(
      score(
        c,
        results.map((r) => ({ truth: r.token.labels[c], observed: r.named[c] })),
      ),
    );
  }
  return { all, named, misses };
}
