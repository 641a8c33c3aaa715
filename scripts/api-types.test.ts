import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { RISK_LEVELS } from '../src/analysis/types.ts';
import { API_TYPES_FILE, renderApiTypes } from './api-types.ts';

describe("the web app's API types (web/src/api-types.ts)", () => {
  it('are what the OpenAPI document generates now: when this fails, run npm run generate:api-types', async () => {
    const fresh = await renderApiTypes();
    expect(readFileSync(API_TYPES_FILE, 'utf8'), 'web/src/api-types.ts is stale').toBe(fresh);
    // The server's one list of risk levels reaches the browser's types through the document.
    const levels = RISK_LEVELS.map((l) => `"${l}"`);
    expect(fresh).toContain(`RiskLevel: ${levels.join(' | ')};`);
    expect(fresh).toMatch(new RegExp(`riskLevelValues: .* = \\[${levels.join(', ')}\\];`));
  });
});
