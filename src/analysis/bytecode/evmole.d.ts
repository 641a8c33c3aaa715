// evmole ships typings (dist/evmole.d.ts) but its package.json "exports" has no "types"
// condition, so moduleResolution "Bundler" cannot find them. The part this project uses:
declare module 'evmole' {
  export interface ContractFunction {
    /** 4-byte selector, 8 hex characters without 0x. */
    selector: string;
    bytecodeOffset: number;
    arguments?: string;
    stateMutability?: string;
  }
  export interface StorageRecord {
    slot: string;
    offset: number;
    type: string;
    reads: string[];
    writes: string[];
  }
  export interface Contract {
    functions?: ContractFunction[];
    storage?: StorageRecord[];
  }
  export function contractInfo(
    code: string,
    args: {
      selectors?: boolean;
      arguments?: boolean;
      stateMutability?: boolean;
      storage?: boolean;
    },
  ): Contract;
}
