export { authRoutes } from './auth.ts';
export { creatorsRoutes } from './creators.ts';
export { docsRouter } from './docs.ts';
export { healthRouter, type ReadinessCheck } from './health.ts';
export { preferencesRoutes } from './preferences.ts';
export { proRoutes } from './pro.ts';
export { tokensRoutes } from './tokens.ts';
export { watchlistRoutes } from './watchlist.ts';
