import { fillPlaceholders, getTableColumns, type SQL } from 'drizzle-orm';
import { PgDialect, type PgTable } from 'drizzle-orm/pg-core';
import type postgres from 'postgres';
import type { Database } from './client.ts';

/**
 * A transaction sent as one write: BEGIN, the statements and COMMIT pipelined on one reserved
 * connection, so it costs one round trip instead of one per statement plus two. Postgres runs them
 * in order; when one fails the rest fail with it ("current transaction is aborted") and COMMIT
 * rolls back, so it stays all or nothing. The statements cannot use each other's results: each is
 * complete SQL (a later one may read what an earlier one wrote, e.g. a count after an update).
 * Statements are prepared (named) on the connection: after their first use there, a statement with
 * parameters needs no description round trip of its own.
 */

const dialect = new PgDialect();

/** A statement's text and parameters, as drizzle renders it. */
export interface Rendered {
  sql: string;
  params: unknown[];
}

/**
 * Something drizzle can render: a query builder (`.toSQL()`) or an `sql` template; or a statement
 * already rendered (`shapedStatements`).
 */
export type Statement = SQL | { toSQL(): Rendered } | Rendered;

const rendered = (s: Statement): Rendered => {
  if ('toSQL' in s && typeof s.toSQL === 'function') return s.toSQL();
  if ('params' in s && typeof s.sql === 'string') return s;
  return dialect.sqlToQuery(s as SQL);
};

/** Distinct shapes a cache keeps; a pipeline has a handful (which columns each stage sets). */
const MAX_SHAPES = 256;

/**
 * Statements whose text depends only on their shape (which columns they set), each shape rendered
 * by drizzle once, with placeholders (`sql.placeholder`), and then only filled with values (each
 * through its column's encoder, as a rendered query's would be). Building a query costs drizzle
 * more CPU than Postgres takes to run it: ~1.2 ms of the ~27 ms an analysis pass took on the
 * worker's event loop (profiled, bench analysis suite).
 */
export function shapedStatements() {
  // A shape's name stands for its whole text: two statements (say, one with RETURNING and one
  // without) must never share a name, or whichever came first answers for both.
  const shapes = new Map<string, Rendered>();
  return function shaped(
    shape: string,
    build: () => Statement,
    values: Record<string, unknown>,
  ): Rendered {
    let template = shapes.get(shape);
    if (!template) {
      template = rendered(build());
      // Shapes come from code, not data; the bound only guards against a caller that mixes data in.
      if (shapes.size >= MAX_SHAPES) shapes.clear();
      shapes.set(shape, template);
    }
    return { sql: template.sql, params: fillPlaceholders(template.params, values) };
  };
}

/** Runs `statements` in one transaction and one round trip; resolves to each one's rows. */
export async function pipelinedTransaction(
  db: Database,
  statements: Statement[],
): Promise<Record<string, unknown>[][]> {
  return (await pipelined(db, statements, 'commit'))!;
}

/**
 * `pipelinedTransaction` whose outcome depends on what its statements answered: they go out in
 * one round trip, then COMMIT if `keep(rows)` holds and ROLLBACK if not (a second round trip).
 * Resolves to each statement's rows, or null when it rolled back.
 */
export async function pipelinedTransactionIf(
  db: Database,
  statements: Statement[],
  keep: (rows: Record<string, unknown>[][]) => boolean,
): Promise<Record<string, unknown>[][] | null> {
  return pipelined(db, statements, keep);
}

async function pipelined(
  db: Database,
  statements: Statement[],
  end: 'commit' | ((rows: Record<string, unknown>[][]) => boolean),
): Promise<Record<string, unknown>[][] | null> {
  // The postgres.js client under drizzle (db/client.ts makes every Database from one).
  const client = (db as Database & { $client: postgres.Sql }).$client;
  const reserved = await client.reserve();
  try {
    const run = (text: string, params: unknown[] = []) =>
      reserved.unsafe(text, params as never[], { prepare: true });
    const sent = [
      run('begin'),
      ...statements.map((s) => {
        const q = rendered(s);
        return run(q.sql, q.params);
      }),
      ...(end === 'commit' ? [run('commit')] : []),
    ];
    const settled = await Promise.allSettled(sent);
    const failed = settled.find((s) => s.status === 'rejected');
    if (failed) {
      // COMMIT after a failed statement has rolled back already; this one only makes sure the
      // connection goes back to the pool outside any transaction.
      await run('rollback').catch(() => {});
      throw failed.reason;
    }
    const rows = settled
      .slice(1, end === 'commit' ? -1 : undefined)
      .map((s) => [...(s as PromiseFulfilledResult<Record<string, unknown>[]>).value]);
    if (end === 'commit') return rows;
    let kept = false;
    try {
      kept = end(rows);
    } finally {
      await run(kept ? 'commit' : 'rollback');
    }
    return kept ? rows : null;
  } finally {
    reserved.release();
  }
}

/**
 * A row a pipelined statement returned (`returning` every column of `table`), as drizzle's own
 * queries answer it: database names to field names, each value through its column's mapping
 * (timestamps to dates, numbers of bigint columns, jsonb).
 */
export function asRow<T extends PgTable>(
  table: T,
  raw: Record<string, unknown>,
): T['$inferSelect'] {
  const row: Record<string, unknown> = {};
  for (const [field, column] of Object.entries(getTableColumns(table))) {
    const value = raw[column.name];
    row[field] = value === null || value === undefined ? null : column.mapFromDriverValue(value);
  }
  return row as T['$inferSelect'];
}
