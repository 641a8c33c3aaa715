import { describe, expect, it } from 'vitest';
import { normalizeToken } from './token-model.ts';

/** The token page reads each finding's proof (docs/risk-model.md, "Propose, then prove"). */
describe('normalizeToken: risk factor proofs', () => {
  const withFactors = (factors: unknown[]) =>
    normalizeToken({
      contract_address: `0x${'ab'.repeat(20)}`,
      chain_id: 1,
      analyses: [{ timestamp: '2026-11-27T00:00:00Z', risk_factor_details: factors }],
    });

  it('keeps a proof with its before and after figures', () => {
    const token = withFactors([
      {
        code: 'admin:mint',
        points: 20,
        severity: 'high',
        message: 'mint',
        evidence: [],
        proof: {
          status: 'proven',
          detail: 'ran as the owner',
          before: { total_supply: '100', ignored: 3 },
          after: { total_supply: '200' },
        },
      },
    ]);
    expect(token.analyses[0]!.risk_factor_details[0]!.proof).toEqual({
      status: 'proven',
      detail: 'ran as the owner',
      before: { total_supply: '100' },
      after: { total_supply: '200' },
    });
  });

  it('reads an analysis made before proofs, or an unknown status, as no proof', () => {
    const token = withFactors([
      { code: 'a', message: 'a', evidence: [] },
      { code: 'b', message: 'b', evidence: [], proof: { status: 'maybe', detail: 'x' } },
    ]);
    expect(token.analyses[0]!.risk_factor_details.map((f) => f.proof)).toEqual([null, null]);
  });
});
