import { readFileSync } from 'node:fs';

/**
 * Solidity written for tests lives in test/fixtures/solidity/, one `.sol` file per family of
 * idioms, compiled at test time by test/support/solc.ts. Each contract says in a comment what its
 * code can do, whatever its functions are called; the tests assert exactly that.
 */

const FIXTURES = new URL('../fixtures/solidity/', import.meta.url);

/** The text of test/fixtures/solidity/<name>.sol. */
export function solidityFixture(name: string): string {
  return readFileSync(new URL(`${name}.sol`, FIXTURES), 'utf8');
}

/**
 * legacy*.sol are written in the subset Solidity 0.4 and 0.5/0.6 share, with three markers this
 * fills in: `THROW` (0.4's `throw`, `revert()` after), `CONSTRUCTOR(Name)` (0.4.18 knows only the
 * named constructor) and `MEMORY` (0.5 needs a data location on array parameters).
 */
export type Dialect = '0.4' | '0.5';

export function dialect(source: string, d: Dialect): string {
  const pragma = d === '0.4' ? 'pragma solidity ^0.4.18;' : 'pragma solidity >=0.5.0 <0.7.0;';
  return `${pragma}\n${source}`
    .replaceAll('THROW', d === '0.4' ? 'throw' : 'revert()')
    .replace(/CONSTRUCTOR\((\w+)\)/g, d === '0.4' ? 'function $1()' : 'constructor()')
    .replaceAll(' MEMORY', d === '0.4' ? '' : ' memory');
}

/** The hard-coded developer address modern.sol's `onlyDev` compares the caller with. */
export const HARDCODED_DEV = '0x5B38Da6a701c568545dCfcB03FcB875f56beddC4';
