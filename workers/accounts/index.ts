/**
 * The accounts' jobs: the scheduled plan downgrades and purges with the notices they send
 * (processor.ts, notices.ts), and the announcement of a plan change to every API instance
 * (plan-changes.ts), which billing and the operator CLI call.
 */

export { type NoticeSenderDeps, noticeEmail, sendPendingNotices } from './notices.ts';
export { type AnnouncePlanChange, createPlanAnnouncer, type PlanChange } from './plan-changes.ts';
export { createAccountsProcessor } from './processor.ts';
