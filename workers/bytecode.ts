import type { Logger } from 'pino';
import type { TokenRepository } from '../db/repositories/tokens.ts';
import { bytecodeFacts } from '../src/evm/bytecode.ts';
import { type ChainRuntime, chainOf } from './chain-runtime.ts';
import type { JobData } from './jobs.ts';
import { routeOutcome } from './pipeline.ts';
import type { Producer } from './queues.ts';

/** The bytecode stage: runtime code → hash, length, proxy hint; then the selectors stage of the same pass. */
export function createBytecodeProcessor(deps: {
  chains: ReadonlyMap<number, ChainRuntime>;
  tokens: TokenRepository;
  producer: Producer;
  logger: Logger;
  /** Called after the token's row changed: invalidates cached copies (infra/token-cache.ts). */
  onChanged?: (chainId: number, address: string) => Promise<void>;
}) {
  return async function processBytecode(data: JobData<'bytecode'>) {
    const chain = chainOf(deps.chains, data.chainId);
    const code = await chain.reader.code(data.address, 'latest');
    const facts = bytecodeFacts(code);
    await deps.tokens.updateBytecode(data.chainId, data.address, facts);
    await deps.onChanged?.(data.chainId, data.address);
    await routeOutcome(deps.producer, 'bytecode', data, {});
    deps.logger.debug(
      { chain: data.chainId, address: data.address, ...facts },
      'bytecode recorded',
    );
    return facts;
  };
}
