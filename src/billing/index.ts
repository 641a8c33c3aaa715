/** Billing through a payment processor (docs/operations.md, billing): what is sold, the events, the transitions. */
export * from './catalog.ts';
export * from './events.ts';
export * from './transitions.ts';
