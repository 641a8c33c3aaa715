export { type CallerCheck, type CallerCheckKind, unwrap } from './caller-patterns.ts';
export { type GateRead, gateReads } from './gates.ts';
export {
  type CodeModel,
  type PathTrace,
  type PathWrite,
  prepareCode,
  type WalkResult,
  walk,
} from './interpreter.ts';
export {
  asAddress,
  callerIs,
  changedBits,
  comparedReads,
  contains,
  entryKey,
  entrySlot,
  evaluate,
  evaluateWith,
  flagReads,
  isPackedBase,
  memberOffset,
  privilegedBy,
  type SlotShape,
  sameSym,
  slotShape,
} from './storage-shapes.ts';
export { isCallerLeaf, isNode, type Node, type Sym, T_CALLER } from './symbolic.ts';
