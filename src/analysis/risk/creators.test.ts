import { describe, expect, it } from 'vitest';
import {
  rates,
  reputationScore,
  SUCCESS_MIN_AGE_HOURS,
  type TokenOutcomeInput,
  tokenOutcome,
} from './creators.ts';

const NOW = new Date('2025-06-01T12:00:00Z');
const hoursAgo = (h: number) => new Date(NOW.getTime() - h * 3_600_000);
const token = (t: Partial<TokenOutcomeInput> = {}): TokenOutcomeInput => ({
  isHoneypot: false,
  liquidityPulledAt: null,
  riskScore: 20,
  bornAt: hoursAgo(48),
  tradable: true,
  isActivelyTraded: false,
  ...t,
});

describe('tokenOutcome', () => {
  it('calls a honeypot or pulled liquidity a scam, whatever else holds', () => {
    expect(tokenOutcome(token({ isHoneypot: true }), NOW)).toBe('scam');
    expect(tokenOutcome(token({ liquidityPulledAt: hoursAgo(1), riskScore: 0 }), NOW)).toBe('scam');
  });

  it('calls a success only an analysed, low/medium-risk token still tradable after 24 h', () => {
    expect(tokenOutcome(token(), NOW)).toBe('success');
    expect(tokenOutcome(token({ riskScore: 60 }), NOW)).toBe('success');
    expect(tokenOutcome(token({ tradable: false, isActivelyTraded: true }), NOW)).toBe('success');
    expect(tokenOutcome(token({ riskScore: 61 }), NOW)).toBe('pending');
    expect(tokenOutcome(token({ riskScore: null }), NOW)).toBe('pending');
    expect(tokenOutcome(token({ bornAt: hoursAgo(SUCCESS_MIN_AGE_HOURS - 1) }), NOW)).toBe(
      'pending',
    );
    expect(tokenOutcome(token({ tradable: false }), NOW)).toBe('pending');
  });
});

describe('reputationScore', () => {
  it('starts at 50, weighs a scam as three successes, and stays within 0-100', () => {
    expect(reputationScore({ success_count: 0, scam_count: 0 })).toBe(50);
    expect(reputationScore({ success_count: 0, scam_count: 1 })).toBe(20);
    expect(reputationScore({ success_count: 5, scam_count: 0 })).toBe(86);
    expect(reputationScore({ success_count: 5, scam_count: 1 })).toBe(60);
    expect(reputationScore({ success_count: 0, scam_count: 1_000 })).toBe(0);
    expect(reputationScore({ success_count: 1_000_000, scam_count: 0 })).toBe(100);
  });

  it('rates in percent over all tokens, pending ones included; none without tokens', () => {
    expect(rates({ total_tokens: 4, success_count: 1, scam_count: 2 })).toEqual({
      success_rate: 25,
      scam_rate: 50,
    });
    expect(rates({ total_tokens: 3, success_count: 1, scam_count: 1 })).toEqual({
      success_rate: 33.33,
      scam_rate: 33.33,
    });
    expect(rates({ total_tokens: 0, success_count: 0, scam_count: 0 })).toEqual({
      success_rate: null,
      scam_rate: null,
    });
  });
});
