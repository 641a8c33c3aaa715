import { z } from 'zod';
import type { AccountRepository } from '../../db/repositories/accounts.ts';
import { ALERT_KINDS, alertKindsOf } from '../../src/alerts.ts';
import type { Clock } from '../access/index.ts';
import { type Auth, principalOf } from '../access/index.ts';
import { HttpError, MESSAGES } from '../errors.ts';
import { type RouteSpec, route } from '../route.ts';
import { preferencesResponse } from '../schemas.ts';

/** The caller's alert preferences (BASIC or PRO): email alerts on or off, and which alert kinds. */

export function preferencesRoutes(deps: {
  accounts: AccountRepository;
  auth: Auth;
  clock: Clock;
}): RouteSpec[] {
  const guard = [deps.auth.authenticate(), deps.auth.requirePlan('watchlist')];
  const putBody = z.strictObject({
    email_alerts: z.boolean('must be a boolean'),
    alert_kinds: z
      .array(z.enum(ALERT_KINDS))
      .max(ALERT_KINDS.length * 2)
      .optional()
      .describe('absent: unchanged'),
  });

  const view = (row: { emailAlerts: boolean; preferences: unknown }) => ({
    email_alerts: row.emailAlerts,
    alert_kinds: alertKindsOf(row.preferences),
  });
  const responses = {
    200: { description: 'The preferences', schema: preferencesResponse },
    403: { description: '`BASIC or PRO plan required`' },
  };

  return [
    route({
      method: 'get',
      path: '/api/preferences',
      tag: 'Preferences',
      auth: 'bearer',
      guard,
      summary: 'Alert preferences (BASIC or PRO)',
      responses,
      async handler(_input, _req, res) {
        // Read afresh: the principal's row may be a cached copy.
        const user = await deps.accounts.userById(principalOf(res).user.id);
        if (!user) throw new HttpError(401, MESSAGES.unauthorized);
        return view(user);
      },
    }),

    route({
      method: 'put',
      path: '/api/preferences',
      tag: 'Preferences',
      auth: 'bearer',
      guard,
      body: putBody,
      summary: 'Switch email alerts on or off and choose the alert kinds (BASIC or PRO)',
      responses,
      async handler({ body }, _req, res) {
        const alertKinds =
          body.alert_kinds === undefined ? undefined : [...new Set(body.alert_kinds)];
        const user = await deps.accounts.setAlertPreferences(
          principalOf(res).user.id,
          { emailAlerts: body.email_alerts, alertKinds },
          deps.clock(),
        );
        if (!user) throw new HttpError(401, MESSAGES.unauthorized);
        return view(user);
      },
    }),
  ];
}
