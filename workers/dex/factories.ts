import type { Logger } from 'pino';
import type { ChainRuntime } from '../chain-runtime.ts';

/**
 * Start-up check of the configured DEX factories: one without code (a wrong address, a chain
 * where the DEX was never deployed) can never answer getPair, so every token of that chain is
 * "no liquidity" there. Simulation copes (src/analysis/simulation/simulation.ts findPool); the operator
 * gets one warning per factory and start, not one per job.
 */

export interface FactoryCheck {
  chainId: number;
  dex: string;
  factory: string;
  status: 'ok' | 'no-code' | 'unreachable';
}

const NO_CODE_MESSAGE =
  'configured DEX factory has no code: its pools count as no liquidity, ' +
  'tokens are scored without simulation there';
const NO_ROUTER_MESSAGE =
  'configured DEX router has no code: its pools cannot be simulated, ' +
  'they count as no liquidity';

async function hasCode(chain: ChainRuntime, address: string): Promise<boolean> {
  const code = await chain.rpc.request<string>('eth_getCode', [address, 'latest']);
  return typeof code === 'string' && code !== '0x' && code !== '0x0';
}

export async function checkDexFactories(
  chains: ReadonlyMap<number, ChainRuntime>,
  logger: Logger,
): Promise<FactoryCheck[]> {
  const checks: FactoryCheck[] = [];
  for (const chain of chains.values()) {
    for (const dex of chain.config.dexes) {
      const base = { chainId: chain.config.chainId, dex: dex.name, factory: dex.factory };
      const fields = { chain: base.chainId, dex: dex.name, factory: dex.factory };
      try {
        if (dex.router && !(await hasCode(chain, dex.router))) {
          logger.warn({ ...fields, router: dex.router }, NO_ROUTER_MESSAGE);
        }
        if (await hasCode(chain, dex.factory)) {
          checks.push({ ...base, status: 'ok' });
          continue;
        }
        logger.warn(fields, NO_CODE_MESSAGE);
        checks.push({ ...base, status: 'no-code' });
      } catch (error) {
        // The node is down at start: the stages retry on their own; this check is advisory.
        logger.warn({ ...fields, err: error }, 'could not check the configured DEX factory');
        checks.push({ ...base, status: 'unreachable' });
      }
    }
  }
  return checks;
}
