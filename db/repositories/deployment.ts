import { asc } from 'drizzle-orm';
import type { Database } from '../client.ts';
import { deployment } from '../schema.ts';

/**
 * This database's identity (db/schema.ts `deployment`), created by migration 0009. Should the row
 * have been deleted by hand, a new one is made; were several ever there, every process reads the
 * oldest, so all of them still agree on one id.
 */
async function oldest(db: Database): Promise<string | undefined> {
  const [row] = await db
    .select({ id: deployment.id })
    .from(deployment)
    .orderBy(asc(deployment.createdAt), asc(deployment.id))
    .limit(1);
  return row?.id;
}

export async function deploymentId(db: Database): Promise<string> {
  const id = await oldest(db);
  if (id) return id;
  await db.insert(deployment).values({});
  const created = await oldest(db);
  if (!created) throw new Error('the deployment table holds no row');
  return created;
}
