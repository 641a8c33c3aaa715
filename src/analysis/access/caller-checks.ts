import { type CodeModel, type WalkResult, walk } from '../walk/index.ts';

/**
 * Which checks on the caller guard a function: a light symbolic walk of it (walk/interpreter.ts) whose
 * branch conditions are matched against the shapes access control compiles to
 * (walk/caller-patterns.ts). The values are walk/symbolic.ts, the arithmetic walk/u256.ts.
 */

export type { CallerCheck, CallerCheckKind } from '../walk/index.ts';
export {
  type CodeModel,
  type PathTrace,
  prepareCode,
  type WalkResult,
} from '../walk/index.ts';

/**
 * Walks the function that `calldata` (0x hex: selector + arguments) dispatches to.
 * `budget` lowers the step allowance (tests, or many functions of one contract).
 */
export function walkFunction(model: CodeModel, calldataHex: string, budget?: number): WalkResult {
  return walk(model, calldataHex, { budget });
}
