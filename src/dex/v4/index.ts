/** Uniswap V4: pool keys, ids and state slots, Initialize and Swap logs, hook permissions. */
export * from './hooks.ts';
export * from './pool.ts';
