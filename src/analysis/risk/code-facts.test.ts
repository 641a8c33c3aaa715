import { describe, expect, it } from 'vitest';
import { sweepCode } from './code-facts.ts';

describe('sweepCode', () => {
  it('finds a SELFDESTRUCT and calls on a reachable path', () => {
    // PUSH1 0 SELFDESTRUCT; JUMPDEST CALL STOP
    expect(sweepCode('0x6000ff5bf100')).toEqual({ selfdestructs: [2], calls: [4] });
  });

  it('skips PUSH data and what follows a terminator until a JUMPDEST', () => {
    // PUSH2 0xffff (data, not instructions); STOP; 0xff (unreachable: no JUMPDEST after STOP)
    expect(sweepCode('0x61ffff00ff')).toEqual({ selfdestructs: [], calls: [] });
    // INVALID then metadata bytes containing 0xff and 0xf1
    expect(sweepCode('0xfea264ff00f1')).toEqual({ selfdestructs: [], calls: [] });
  });
});
