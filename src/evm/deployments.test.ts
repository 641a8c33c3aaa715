import { id } from 'ethers';
import { describe, expect, it } from 'vitest';
import {
  type BlockTraces,
  type Deployment,
  findDeployments,
  TRANSFER_TOPIC,
  transferLogCandidates,
} from './deployments.ts';
import type { CallFrame, ParityTrace, RpcLog, RpcReceipt, TxCallTrace } from './types.ts';

// ---------------------------------------------------------------------------------------------
// Fixtures: mixed-case (checksummed) addresses and hashes, hex quantities, as a node returns them.
// ---------------------------------------------------------------------------------------------

const BLOCK_NUMBER = '0x12a05f2';
const BLOCK_HASH = '0x8E38B4DBF6B11FCC3B9DEE84FB7986E29CA0A02CECD8977C161FF7333329681E';

const DEPLOYER = '0xAb5801a7D398351b8bE11C439e05C5B3259aeC9B'; // an EOA
const TRADER = '0x1Db3439a222C519ab44bb1144fC28167b4Fa6EE6'; // an EOA
const FACTORY = '0x5C69bEe701ef814a2B6a3EDD4B1652CB9cc5aA6f'; // a factory contract
const ROUTER = '0x7a250d5630B4cF539739dF2C5dAcb4c659F2488D'; // a contract called by the factory
const TOKEN_A = '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48';
const TOKEN_B = '0xdAC17F958D2ee523a2206206994597C13D831ec7';
const TOKEN_C = '0x6B175474E89094C44Da98b954EedeAC495271d0F';
const PAIR = '0xB4e16d0168e52d35CaCD2c6185b44281Ec28C9Dc';
const UNDONE_1 = '0x9f8F72aA9304c8B593d555F12eF6589cC3A579A2';
const UNDONE_2 = '0x1f9840a85d5aF5bf1D1762F925BDADdC4201F984';
const HELPER = '0x514910771AF9Ca656af840dff83E8264EcF986CA';
const NFT = '0xBC4CA0EdA7647A8aB7C2061c2E118A18a936f13D';

const ZERO_WORD = `0x${'0'.repeat(64)}`;
const APPROVAL_TOPIC = '0x8c5be1e5ebec7d5bd14f71427d1e84f3dd0314c0f7b2291e5b200ac8c7c3b925';

let hashCounter = 0;
/** A distinct 32-byte transaction hash, upper-case hex to exercise lower-casing. */
function txHash(): string {
  hashCounter += 1;
  return `0x${hashCounter.toString(16).padStart(8, '0').toUpperCase()}${'ABCDEF01'.repeat(7)}`;
}

const topicOf = (address: string) => `0x${address.slice(2).toLowerCase().padStart(64, '0')}`;

function receipt(fields: Partial<RpcReceipt> & { from: string }): RpcReceipt {
  return {
    transactionHash: txHash(),
    to: null,
    contractAddress: null,
    status: '0x1',
    gasUsed: '0x5208',
    blockNumber: BLOCK_NUMBER,
    blockHash: BLOCK_HASH,
    logs: [],
    ...fields,
  };
}

function transferLog(
  token: string,
  from: string,
  to: string,
  hash: string,
  extraTopics: string[] = [],
): RpcLog {
  return {
    address: token,
    topics: [TRANSFER_TOPIC, topicOf(from), topicOf(to), ...extraTopics],
    data: extraTopics.length > 0 ? '0x' : `0x${(10n ** 24n).toString(16).padStart(64, '0')}`,
    transactionHash: hash,
    blockNumber: BLOCK_NUMBER,
    blockHash: BLOCK_HASH,
    logIndex: '0x0',
  };
}

const NONE: BlockTraces = { kind: 'none' };
const byAddress = (list: Deployment[]) => new Map(list.map((d) => [d.address, d]));
const isLowerHex = (s: string | null) => s === null || s === s.toLowerCase();

// ---------------------------------------------------------------------------------------------

describe('findDeployments: receipts', () => {
  it('reports a top-level deployment with the sender as creator, not a contract, and gasUsed parsed', () => {
    const r = receipt({ from: DEPLOYER, contractAddress: TOKEN_A, gasUsed: '0x1e8480' });
    const found = findDeployments([r], NONE);
    expect(found).toEqual<Deployment[]>([
      {
        address: TOKEN_A.toLowerCase(),
        creator: DEPLOYER.toLowerCase(),
        creatorIsContract: false,
        txOrigin: DEPLOYER.toLowerCase(),
        txHash: r.transactionHash.toLowerCase(),
        gasUsed: 2_000_000,
        source: 'receipt',
      },
    ]);
  });

  it('ignores a failed deployment (status 0x0) and plain calls without contractAddress', () => {
    const failed = receipt({ from: DEPLOYER, contractAddress: TOKEN_A, status: '0x0' });
    const call = receipt({ from: TRADER, to: TOKEN_B, contractAddress: null });
    const ok = receipt({ from: DEPLOYER, contractAddress: TOKEN_C });
    const found = findDeployments([failed, call, ok], NONE);
    expect(found.map((d) => d.address)).toEqual([TOKEN_C.toLowerCase()]);
  });

  it('treats a pre-Byzantium receipt without status as successful', () => {
    const { status: _status, ...rest } = receipt({ from: DEPLOYER, contractAddress: TOKEN_A });
    const found = findDeployments([rest], NONE);
    expect(found).toHaveLength(1);
    expect(found[0]!.address).toBe(TOKEN_A.toLowerCase());
  });

  it('returns nothing for an empty block', () => {
    expect(findDeployments([], NONE)).toEqual([]);
    expect(findDeployments([], { kind: 'callTracer', traces: [] })).toEqual([]);
    expect(findDeployments([], { kind: 'parity', traces: [] })).toEqual([]);
  });
});

describe('findDeployments: callTracer traces', () => {
  /** A transaction from TRADER to FACTORY that creates TOKEN_B (CREATE, depth 1) and PAIR (CREATE2, depth 2 via ROUTER). */
  function factoryTx() {
    const r = receipt({ from: TRADER, to: FACTORY, gasUsed: '0x4c4b40' });
    const root: CallFrame = {
      type: 'CALL',
      from: TRADER,
      to: FACTORY,
      gasUsed: '0x4c4b40',
      calls: [
        { type: 'CREATE', from: FACTORY, to: TOKEN_B, gasUsed: '0x186a0' },
        {
          type: 'CALL',
          from: FACTORY,
          to: ROUTER,
          gasUsed: '0x30d40',
          calls: [
            { type: 'STATICCALL', from: ROUTER, to: TOKEN_B, gasUsed: '0x9c4' },
            { type: 'CREATE2', from: ROUTER, to: PAIR, gasUsed: '0x2dc6c0' },
          ],
        },
      ],
    };
    return { r, trace: { txHash: r.transactionHash, result: root } satisfies TxCallTrace };
  }

  it('finds factory CREATE (depth 1) and CREATE2 (depth 2) with the frame sender as creator', () => {
    const { r, trace } = factoryTx();
    const found = findDeployments([r], { kind: 'callTracer', traces: [trace] });
    expect(found).toHaveLength(2);
    const map = byAddress(found);
    expect(map.get(TOKEN_B.toLowerCase())).toEqual<Deployment>({
      address: TOKEN_B.toLowerCase(),
      creator: FACTORY.toLowerCase(),
      creatorIsContract: true,
      txOrigin: TRADER.toLowerCase(),
      txHash: r.transactionHash.toLowerCase(),
      gasUsed: 100_000,
      source: 'trace',
    });
    expect(map.get(PAIR.toLowerCase())).toEqual<Deployment>({
      address: PAIR.toLowerCase(),
      creator: ROUTER.toLowerCase(),
      creatorIsContract: true,
      txOrigin: TRADER.toLowerCase(),
      txHash: r.transactionHash.toLowerCase(),
      gasUsed: 3_000_000,
      source: 'trace',
    });
  });

  it('accepts lower-case frame types (create/create2) and a frame without gasUsed', () => {
    const r = receipt({ from: TRADER, to: FACTORY });
    const root: CallFrame = {
      type: 'call',
      from: TRADER,
      to: FACTORY,
      calls: [
        { type: 'create2', from: FACTORY, to: TOKEN_A },
        { type: 'delegatecall', from: FACTORY, to: ROUTER },
      ],
    };
    const found = findDeployments([r], {
      kind: 'callTracer',
      traces: [{ txHash: r.transactionHash, result: root }],
    });
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({
      address: TOKEN_A.toLowerCase(),
      creator: FACTORY.toLowerCase(),
      gasUsed: null,
      source: 'trace',
    });
  });

  it('ignores traces of a failed transaction', () => {
    const { r, trace } = factoryTx();
    const failed = { ...r, status: '0x0' };
    expect(findDeployments([failed], { kind: 'callTracer', traces: [trace] })).toEqual([]);
  });

  it('ignores a trace whose txHash matches no receipt, and entries with only a tracer error', () => {
    const { trace } = factoryTx();
    const other = receipt({ from: TRADER, to: TOKEN_C });
    const errored: TxCallTrace = { txHash: other.transactionHash, error: 'execution timeout' };
    expect(findDeployments([other], { kind: 'callTracer', traces: [trace, errored] })).toEqual([]);
  });

  it('drops creations beneath a reverted subframe even when the children report no error', () => {
    const r = receipt({ from: TRADER, to: FACTORY });
    const root: CallFrame = {
      type: 'CALL',
      from: TRADER,
      to: FACTORY,
      calls: [
        {
          type: 'CALL',
          from: FACTORY,
          to: ROUTER,
          error: 'execution reverted',
          calls: [
            // The tracer reports these as successful; the parent's revert undid them.
            { type: 'CREATE', from: ROUTER, to: UNDONE_1, gasUsed: '0x100' },
            {
              type: 'CALL',
              from: ROUTER,
              to: HELPER,
              calls: [{ type: 'CREATE2', from: HELPER, to: UNDONE_2 }],
            },
          ],
        },
        // A CREATE that itself failed (e.g. out of gas in the constructor).
        { type: 'CREATE', from: FACTORY, to: TOKEN_C, error: 'out of gas' },
        // The sibling after the reverted call survives.
        { type: 'CREATE', from: FACTORY, to: TOKEN_A, gasUsed: '0x200' },
      ],
    };
    const found = findDeployments([r], {
      kind: 'callTracer',
      traces: [{ txHash: r.transactionHash, result: root }],
    });
    expect(found.map((d) => d.address)).toEqual([TOKEN_A.toLowerCase()]);
  });

  it('matches an entry without txHash to the receipt at the same index', () => {
    const r0 = receipt({ from: DEPLOYER, to: TOKEN_C });
    const r1 = receipt({ from: TRADER, to: FACTORY });
    const traces: TxCallTrace[] = [
      { result: { type: 'CALL', from: DEPLOYER, to: TOKEN_C } },
      {
        result: {
          type: 'CALL',
          from: TRADER,
          to: FACTORY,
          calls: [{ type: 'CREATE', from: FACTORY, to: TOKEN_B }],
        },
      },
    ];
    const found = findDeployments([r0, r1], { kind: 'callTracer', traces });
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({
      address: TOKEN_B.toLowerCase(),
      txHash: r1.transactionHash.toLowerCase(),
      txOrigin: TRADER.toLowerCase(),
      creator: FACTORY.toLowerCase(),
    });
  });

  it('does not match an index-matched entry to a failed receipt', () => {
    const r0 = receipt({ from: TRADER, to: FACTORY, status: '0x0' });
    const traces: TxCallTrace[] = [
      {
        result: {
          type: 'CALL',
          from: TRADER,
          to: FACTORY,
          calls: [{ type: 'CREATE', from: FACTORY, to: TOKEN_B }],
        },
      },
    ];
    expect(findDeployments([r0], { kind: 'callTracer', traces })).toEqual([]);
  });

  it('does not duplicate the root CREATE frame of a top-level deployment, but finds what its constructor creates', () => {
    const r = receipt({ from: DEPLOYER, contractAddress: TOKEN_A, gasUsed: '0xf4240' });
    const root: CallFrame = {
      type: 'CREATE',
      from: DEPLOYER,
      to: TOKEN_A,
      gasUsed: '0xf4240',
      calls: [{ type: 'CREATE', from: TOKEN_A, to: HELPER, gasUsed: '0x7530' }],
    };
    const found = findDeployments([r], {
      kind: 'callTracer',
      traces: [{ txHash: r.transactionHash, result: root }],
    });
    expect(found).toHaveLength(2);
    const map = byAddress(found);
    // The receipt's account of the top-level contract wins: sender as creator, not a contract.
    expect(map.get(TOKEN_A.toLowerCase())).toMatchObject({
      creator: DEPLOYER.toLowerCase(),
      creatorIsContract: false,
      source: 'receipt',
      gasUsed: 1_000_000,
    });
    expect(map.get(HELPER.toLowerCase())).toMatchObject({
      creator: TOKEN_A.toLowerCase(),
      creatorIsContract: true,
      txOrigin: DEPLOYER.toLowerCase(),
      source: 'trace',
      gasUsed: 30_000,
    });
  });

  it('reports a root CREATE only via the receipt: a trace-only root CREATE is not reported', () => {
    // Depth 0 is the transaction itself; only the receipt speaks for it.
    const r = receipt({ from: DEPLOYER, contractAddress: null });
    const root: CallFrame = { type: 'CREATE', from: DEPLOYER, to: TOKEN_A };
    expect(
      findDeployments([r], {
        kind: 'callTracer',
        traces: [{ txHash: r.transactionHash, result: root }],
      }),
    ).toEqual([]);
  });

  it('matches a trace txHash case-insensitively and lower-cases every address', () => {
    const r = receipt({ from: TRADER, to: FACTORY });
    const upperHash = `0x${r.transactionHash.slice(2).toUpperCase()}`;
    const lowerReceipt = { ...r, transactionHash: r.transactionHash.toLowerCase() };
    const root: CallFrame = {
      type: 'CALL',
      from: TRADER.toUpperCase().replace('0X', '0x'),
      to: FACTORY,
      calls: [
        {
          type: 'CREATE',
          from: FACTORY.toUpperCase().replace('0X', '0x'),
          to: TOKEN_B.toUpperCase().replace('0X', '0x'),
        },
      ],
    };
    const found = findDeployments([lowerReceipt], {
      kind: 'callTracer',
      traces: [{ txHash: upperHash, result: root }],
    });
    expect(found).toHaveLength(1);
    const d = found[0]!;
    expect(d.address).toBe(TOKEN_B.toLowerCase());
    expect(d.creator).toBe(FACTORY.toLowerCase());
    for (const value of [d.address, d.creator, d.txOrigin, d.txHash])
      expect(isLowerHex(value)).toBe(true);
  });

  it('keeps one entry per address when a receipt and traces both report it', () => {
    const deploy = receipt({ from: DEPLOYER, contractAddress: TOKEN_A });
    const { r, trace } = factoryTx();
    // The same token also appears twice in the traces (e.g. a buggy node repeating a frame).
    const dup: TxCallTrace = {
      txHash: r.transactionHash,
      result: {
        type: 'CALL',
        from: TRADER,
        to: FACTORY,
        calls: [{ type: 'CREATE', from: FACTORY, to: TOKEN_A }],
      },
    };
    const found = findDeployments([deploy, r], { kind: 'callTracer', traces: [trace, dup] });
    const addresses = found.map((d) => d.address);
    expect(new Set(addresses).size).toBe(addresses.length);
    expect(addresses.sort()).toEqual([TOKEN_A, TOKEN_B, PAIR].map((a) => a.toLowerCase()).sort());
    expect(byAddress(found).get(TOKEN_A.toLowerCase())!.source).toBe('receipt');
  });
});

describe('findDeployments: parity trace_block', () => {
  function parityBlock() {
    const deploy = receipt({ from: DEPLOYER, contractAddress: TOKEN_A, gasUsed: '0xf4240' });
    const factoryCall = receipt({ from: TRADER, to: FACTORY });
    const tx1 = deploy.transactionHash;
    const tx2 = factoryCall.transactionHash;
    const traces: ParityTrace[] = [
      // Top-level deployment: traceAddress [] — the receipt already reports it.
      {
        type: 'create',
        action: { from: DEPLOYER, creationMethod: 'create' },
        result: { address: TOKEN_A, gasUsed: '0xf4240' },
        transactionHash: tx1,
        traceAddress: [],
      },
      {
        type: 'call',
        action: { from: TRADER },
        result: { gasUsed: '0x5208' },
        transactionHash: tx2,
        traceAddress: [],
      },
      // [0]: a successful factory CREATE.
      {
        type: 'create',
        action: { from: FACTORY, creationMethod: 'create' },
        result: { address: TOKEN_B, gasUsed: '0x186a0' },
        transactionHash: tx2,
        traceAddress: [0],
      },
      // [1]: a call that reverted; its child [1, 0] reports no error but was undone.
      {
        type: 'call',
        action: { from: FACTORY },
        result: null,
        error: 'Reverted',
        transactionHash: tx2,
        traceAddress: [1],
      },
      {
        type: 'create',
        action: { from: ROUTER, creationMethod: 'create2' },
        result: { address: UNDONE_1, gasUsed: '0x100' },
        transactionHash: tx2,
        traceAddress: [1, 0],
      },
      // [1, 1, 0]: deeper under the failed [1].
      {
        type: 'create',
        action: { from: HELPER, creationMethod: 'create' },
        result: { address: UNDONE_2, gasUsed: '0x100' },
        transactionHash: tx2,
        traceAddress: [1, 1, 0],
      },
      // [2]: a CREATE that itself failed.
      {
        type: 'create',
        action: { from: FACTORY },
        result: null,
        error: 'Out of gas',
        transactionHash: tx2,
        traceAddress: [2],
      },
      // [10, 0]: "10" starts with "1" as text but is not beneath [1].
      {
        type: 'create',
        action: { from: ROUTER, creationMethod: 'create2' },
        result: { address: PAIR, gasUsed: '0x2dc6c0' },
        transactionHash: tx2,
        traceAddress: [10, 0],
      },
      // A block reward has no transaction.
      { type: 'reward', action: {}, result: null, traceAddress: [] },
    ];
    return { deploy, factoryCall, traces };
  }

  it('finds nested creations, skips the top-level one, failed ones and those under a failed ancestor', () => {
    const { deploy, factoryCall, traces } = parityBlock();
    const found = findDeployments([deploy, factoryCall], { kind: 'parity', traces });
    const map = byAddress(found);
    expect([...map.keys()].sort()).toEqual(
      [TOKEN_A, TOKEN_B, PAIR].map((a) => a.toLowerCase()).sort(),
    );
    expect(found).toHaveLength(3);
    expect(map.get(TOKEN_A.toLowerCase())).toMatchObject({
      source: 'receipt',
      creatorIsContract: false,
      creator: DEPLOYER.toLowerCase(),
    });
    expect(map.get(TOKEN_B.toLowerCase())).toEqual<Deployment>({
      address: TOKEN_B.toLowerCase(),
      creator: FACTORY.toLowerCase(),
      creatorIsContract: true,
      txOrigin: TRADER.toLowerCase(),
      txHash: factoryCall.transactionHash.toLowerCase(),
      gasUsed: 100_000,
      source: 'trace',
    });
    expect(map.get(PAIR.toLowerCase())).toMatchObject({
      creator: ROUTER.toLowerCase(),
      gasUsed: 3_000_000,
      source: 'trace',
    });
    expect(map.has(UNDONE_1.toLowerCase())).toBe(false);
    expect(map.has(UNDONE_2.toLowerCase())).toBe(false);
  });

  it('ignores parity creations of a failed transaction and of a transaction without receipt', () => {
    const { deploy, factoryCall, traces } = parityBlock();
    const failed = { ...factoryCall, status: '0x0' };
    expect(
      findDeployments([deploy, failed], { kind: 'parity', traces }).map((d) => d.address),
    ).toEqual([TOKEN_A.toLowerCase()]);
    expect(findDeployments([deploy], { kind: 'parity', traces }).map((d) => d.address)).toEqual([
      TOKEN_A.toLowerCase(),
    ]);
  });

  it('undoes every nested creation when the root trace failed', () => {
    const r = receipt({ from: TRADER, to: FACTORY });
    const traces: ParityTrace[] = [
      {
        type: 'call',
        action: { from: TRADER },
        result: null,
        error: 'Reverted',
        transactionHash: r.transactionHash,
        traceAddress: [],
      },
      {
        type: 'create',
        action: { from: FACTORY },
        result: { address: TOKEN_B, gasUsed: '0x1' },
        transactionHash: r.transactionHash,
        traceAddress: [0],
      },
    ];
    expect(findDeployments([r], { kind: 'parity', traces })).toEqual([]);
  });

  it('matches transaction hashes case-insensitively, lower-cases addresses, and reports a missing action.from as null', () => {
    const r = receipt({ from: TRADER, to: FACTORY });
    const traces: ParityTrace[] = [
      {
        type: 'create',
        action: {},
        result: { address: TOKEN_C.toUpperCase().replace('0X', '0x') },
        transactionHash: r.transactionHash.toLowerCase(),
        traceAddress: [0],
      },
    ];
    const found = findDeployments([r], { kind: 'parity', traces });
    expect(found).toEqual<Deployment[]>([
      {
        address: TOKEN_C.toLowerCase(),
        creator: null,
        creatorIsContract: true,
        txOrigin: TRADER.toLowerCase(),
        txHash: r.transactionHash.toLowerCase(),
        gasUsed: null,
        source: 'trace',
      },
    ]);
  });

  it('only considers type "create" traces with a result address', () => {
    const r = receipt({ from: TRADER, to: FACTORY });
    const tx = r.transactionHash;
    const traces: ParityTrace[] = [
      {
        type: 'suicide',
        action: { from: HELPER },
        result: null,
        transactionHash: tx,
        traceAddress: [0],
      },
      {
        type: 'call',
        action: { from: FACTORY },
        result: { address: TOKEN_A },
        transactionHash: tx,
        traceAddress: [1],
      },
      {
        type: 'create',
        action: { from: FACTORY },
        result: {},
        transactionHash: tx,
        traceAddress: [2],
      },
    ];
    expect(findDeployments([r], { kind: 'parity', traces })).toEqual([]);
  });
});

describe('transferLogCandidates', () => {
  it('keeps only 3-topic Transfer logs, collapses duplicates, honours the exclusion set', () => {
    const hash = txHash();
    const mintTx = receipt({
      from: DEPLOYER,
      to: FACTORY,
      transactionHash: hash,
      logs: [
        // A mint from the zero address: the called contract is the likely factory.
        transferLog(TOKEN_A, `0x${'0'.repeat(40)}`, DEPLOYER, hash),
        // The same token again: collapsed.
        transferLog(TOKEN_A, DEPLOYER, TRADER, hash),
        // ERC-721 Transfer has a fourth (indexed tokenId) topic.
        transferLog(NFT, `0x${'0'.repeat(40)}`, DEPLOYER, hash, [`0x${'0'.repeat(63)}1`]),
        // An Approval: three topics but another signature.
        {
          ...transferLog(TOKEN_C, DEPLOYER, ROUTER, hash),
          topics: [APPROVAL_TOPIC, topicOf(DEPLOYER), topicOf(ROUTER)],
        },
        // An anonymous-ish log with a Transfer topic but only two topics.
        {
          ...transferLog(HELPER, DEPLOYER, ROUTER, hash),
          topics: [TRANSFER_TOPIC, topicOf(DEPLOYER)],
        },
        // An already known token.
        transferLog(TOKEN_B, TRADER, DEPLOYER, hash),
      ],
    });
    const found = transferLogCandidates([mintTx], new Set([TOKEN_B.toLowerCase()]));
    expect(found).toEqual([
      {
        address: TOKEN_A.toLowerCase(),
        txHash: hash.toLowerCase(),
        txOrigin: DEPLOYER.toLowerCase(),
        likelyCreator: FACTORY.toLowerCase(),
      },
    ]);
  });

  it('sets likelyCreator only for a mint, and null for a contract-creation transaction', () => {
    const h1 = txHash();
    const h2 = txHash();
    const plainTransfer = receipt({
      from: TRADER,
      to: ROUTER,
      transactionHash: h1,
      logs: [transferLog(TOKEN_B, TRADER, PAIR, h1)],
    });
    const constructorMint = receipt({
      from: DEPLOYER,
      to: null,
      contractAddress: TOKEN_C,
      transactionHash: h2,
      logs: [transferLog(TOKEN_C, `0x${'0'.repeat(40)}`, DEPLOYER, h2)],
    });
    const found = transferLogCandidates([plainTransfer, constructorMint], new Set());
    expect(found).toEqual([
      {
        address: TOKEN_B.toLowerCase(),
        txHash: h1.toLowerCase(),
        txOrigin: TRADER.toLowerCase(),
        likelyCreator: null,
      },
      {
        address: TOKEN_C.toLowerCase(),
        txHash: h2.toLowerCase(),
        txOrigin: DEPLOYER.toLowerCase(),
        likelyCreator: null,
      },
    ]);
  });

  it('collapses duplicates across transactions, keeping the first one', () => {
    const h1 = txHash();
    const h2 = txHash();
    const first = receipt({
      from: TRADER,
      to: ROUTER,
      transactionHash: h1,
      logs: [transferLog(TOKEN_A, TRADER, PAIR, h1)],
    });
    const second = receipt({
      from: DEPLOYER,
      to: FACTORY,
      transactionHash: h2,
      logs: [transferLog(TOKEN_A, ZERO_WORD.slice(0, 42), TRADER, h2)],
    });
    const found = transferLogCandidates([first, second], new Set());
    expect(found).toHaveLength(1);
    expect(found[0]).toEqual({
      address: TOKEN_A.toLowerCase(),
      txHash: h1.toLowerCase(),
      txOrigin: TRADER.toLowerCase(),
      likelyCreator: null,
    });
  });

  it('accepts an upper-case Transfer topic and zero topic, and lower-cases the emitter', () => {
    const h = txHash();
    const log = transferLog(TOKEN_A, `0x${'0'.repeat(40)}`, TRADER, h);
    log.topics = log.topics.map((t) => `0x${t.slice(2).toUpperCase()}`);
    const r = receipt({ from: TRADER, to: FACTORY, transactionHash: h, logs: [log] });
    const [candidate] = transferLogCandidates([r], new Set());
    expect(candidate).toEqual({
      address: TOKEN_A.toLowerCase(),
      txHash: h.toLowerCase(),
      txOrigin: TRADER.toLowerCase(),
      likelyCreator: FACTORY.toLowerCase(),
    });
  });

  it('ignores the logs of a failed receipt', () => {
    const h = txHash();
    const r = receipt({
      from: TRADER,
      to: FACTORY,
      status: '0x0',
      transactionHash: h,
      logs: [transferLog(TOKEN_A, TRADER, PAIR, h)],
    });
    expect(transferLogCandidates([r], new Set())).toEqual([]);
  });

  it('TRANSFER_TOPIC is keccak256("Transfer(address,address,uint256)")', () => {
    expect(TRANSFER_TOPIC).toBe(id('Transfer(address,address,uint256)'));
  });
});
