import postgres from 'postgres';
import { runMigrations } from '../../db/client.ts';
import type { TestDatabase } from '../../test/support/services.ts';
import type { ScaleShape } from './scale-seed.ts';

/**
 * `npm run bench -- --only scale --reuse`: the seeded million tokens kept between runs, for
 * iterating on the list and detail latency without a five-minute seed each time. The database is
 * named by the shape, seeded on the first such run (the marker row is written last, so an
 * interrupted seed is redone) and never dropped. A run on reused data measures only at the full
 * size (no tenth-size baseline, no retention or fan-out, which would change the data) and every row
 * it writes says that the data was reused; the committed figures come from runs without it.
 */

const ADMIN_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export interface ReusableDatabase extends TestDatabase {
  /** The `now` the data was seeded for; undefined: empty, seed it and call `markSeeded`. */
  seededAt: number | undefined;
  markSeeded(nowMs: number): Promise<void>;
}

export async function reusableDatabase(shape: ScaleShape, days: number): Promise<ReusableDatabase> {
  const name = `tm_bench_scale_${shape.tokens}_${shape.activeTokens}_${days}`;
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  const admin = postgres(ADMIN_URL, { max: 1, onnotice: () => {} });
  let seededAt: number | undefined;
  try {
    const [exists] = await admin`select 1 from pg_database where datname = ${name}`;
    if (exists) {
      const sql = postgres(url.toString(), { max: 1, onnotice: () => {} });
      try {
        const [marker] = await sql<{ now_ms: string }[]>`
          select now_ms::text from bench_scale_seed where complete`.catch(() => []);
        seededAt = marker ? Number(marker.now_ms) : undefined;
      } finally {
        await sql.end({ timeout: 2 });
      }
    }
    if (seededAt === undefined) {
      await admin.unsafe(`drop database if exists ${name} with (force)`);
      await admin.unsafe(`create database ${name}`);
    }
  } finally {
    await admin.end({ timeout: 2 });
  }
  // Migrations added since the seed apply to the kept data too.
  await runMigrations(url.toString());
  return {
    url: url.toString(),
    embedded: false,
    seededAt,
    async markSeeded(nowMs) {
      const sql = postgres(url.toString(), { max: 1, onnotice: () => {} });
      try {
        await sql`create table bench_scale_seed (now_ms bigint not null, complete boolean not null)`;
        await sql`insert into bench_scale_seed values (${nowMs}, true)`;
      } finally {
        await sql.end({ timeout: 2 });
      }
    },
    // Kept for the next run.
    drop: async () => {},
  };
}
