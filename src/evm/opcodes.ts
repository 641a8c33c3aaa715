/** EVM instruction encoding shared by every pass that reads code as instructions. */

export const PUSH0 = 0x5f;
export const PUSH1 = 0x60;
export const PUSH32 = 0x7f;
export const JUMPDEST = 0x5b;

/**
 * Bytes of immediate data that follow the instruction `op` (PUSH1..PUSH32 carry 1..32; every
 * other opcode none). Data bytes are not instructions: a 0x5b inside a PUSH is no JUMPDEST.
 */
export function pushDataSize(op: number): number {
  return op >= PUSH1 && op <= PUSH32 ? op - PUSH0 : 0;
}
