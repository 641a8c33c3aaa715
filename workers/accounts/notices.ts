import type { Logger } from 'pino';
import type { PendingNotice } from '../../db/repositories/account-notices.ts';
import type { AccountRepository } from '../../db/repositories/accounts.ts';
import { DAY_MS, PURGE_AFTER_DAYS } from '../../src/plans.ts';
import type { Mailer } from '../alerts.ts';

/**
 * The emails a plan change owes (account_notices: a failed payment, a downgrade), sent by the
 * worker role: right after the change (an `accounts` job of task `notices`) and on every
 * maintenance run for whatever is still pending. Each notice is claimed for a lease before it is
 * sent, and marked sent after: two workers never both send one, and a failed send is retried.
 */

const CLAIM_LEASE_MS = 60_000;
const BATCH = 50;
/** A notice still unsent after this long (SMTP was down, or configured only now) is dropped: stale news. */
const MAX_NOTICE_AGE_MS = 3 * DAY_MS;

const REASONS: Record<string, string> = {
  trial_ended: 'your trial ended',
  payment_failed: 'a payment failed and was not settled within 3 days',
  cancelled: 'your subscription was cancelled and its last period ended',
  subscription_deleted: 'your subscription ended',
  plan_changed: 'your plan was changed',
};

export function noticeEmail(notice: PendingNotice, from: string) {
  const d = notice.details as Record<string, string | undefined>;
  if (notice.kind === 'payment_failed') {
    return {
      from,
      to: notice.email,
      subject: 'token-monitor: a payment for your plan failed',
      text: [
        `A payment for your ${d.plan ?? 'paid'} plan failed.`,
        `Your plan stays as it is until ${d.downgrade_at ?? 'three days from now'}; unless a payment goes through by then, the account returns to FREE.`,
        'Update your card from the settings page ("Manage billing"). Your watchlist and preferences are kept either way.',
      ].join('\n\n'),
    };
  }
  const keptUntil = new Date(notice.createdAt.getTime() + PURGE_AFTER_DAYS * DAY_MS);
  return {
    from,
    to: notice.email,
    subject: 'token-monitor: your account is now on the FREE plan',
    text: [
      `Your account moved from ${d.from ?? 'its paid plan'} to FREE: ${REASONS[d.reason ?? ''] ?? d.reason ?? 'the plan changed'}.`,
      `Your watchlist and preferences are kept until ${keptUntil.toISOString().slice(0, 10)} (${PURGE_AFTER_DAYS} days); upgrade again from the settings page before then to keep them.`,
    ].join('\n\n'),
  };
}

export interface NoticeSenderDeps {
  accounts: AccountRepository;
  logger: Logger;
  /** No mailer (no SMTP_URL): nothing is sent; notices stay pending until they are too old. */
  mailer?: Mailer;
  from: string;
  clock?: () => Date;
}

/** Sends every pending notice; throws after trying them all if any failed (the job is retried). */
export async function sendPendingNotices(deps: NoticeSenderDeps): Promise<{ sent: number }> {
  const { mailer, accounts, logger } = deps;
  if (!mailer) return { sent: 0 };
  const clock = deps.clock ?? (() => new Date());
  let sent = 0;
  let failed: Error | undefined;
  for (;;) {
    const batch = await accounts.claimPendingNotices(clock(), CLAIM_LEASE_MS, BATCH);
    if (batch.length === 0) break;
    for (const notice of batch) {
      try {
        if (clock().getTime() - notice.createdAt.getTime() > MAX_NOTICE_AGE_MS)
          logger.warn({ notice: notice.id, kind: notice.kind }, 'account notice too old: dropped');
        else {
          await mailer.send(noticeEmail(notice, deps.from));
          sent += 1;
        }
        await accounts.markNoticeSent(notice.id, clock());
      } catch (error) {
        failed = error as Error;
        logger.warn({ err: error, notice: notice.id }, 'account notice email failed; will retry');
        await accounts.releaseNotice(notice.id).catch(() => {});
      }
    }
    if (failed || batch.length < BATCH) break;
  }
  if (failed) throw failed;
  return { sent };
}
