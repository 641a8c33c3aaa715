export { authRoutes } from './auth.ts';
export { BILLING_MESSAGES, type BillingSetup, billingRoutes } from './billing.ts';
export { creatorsRoutes } from './creators.ts';
export { docsRouter } from './docs.ts';
export { type BacklogReader, healthRouter, type ReadinessCheck } from './health.ts';
export { preferencesRoutes } from './preferences.ts';
export { proRoutes } from './pro.ts';
export { tokensRoutes } from './tokens.ts';
export { watchlistRoutes } from './watchlist.ts';
