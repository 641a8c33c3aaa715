import express from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import type { QueueBacklog } from '../../infra/queue-backlog.ts';
import { closeServer, listen, request } from '../../test/support/api.ts';
import { type BacklogReader, healthRouter } from './health.ts';

const ok = { name: 'postgres', check: async () => {} };
const deep: QueueBacklog = { waiting: 271, delayed: 2, active: 16, oldestWaitingSeconds: 14.234 };
const idle: QueueBacklog = { waiting: 0, delayed: 0, active: 0, oldestWaitingSeconds: 0 };

describe('/ready with a backlog reader', () => {
  let server: Awaited<ReturnType<typeof listen>>['server'] | undefined;
  afterEach(async () => {
    await closeServer(server);
    server = undefined;
  });
  const ready = async (backlog: BacklogReader, checks = [ok]) => {
    const app = express();
    app.use(healthRouter(checks, undefined, backlog));
    const started = await listen(app);
    server = started.server;
    return request(`${started.base}/ready`);
  };

  it('shows each queue’s backlog and stays ready however deep it is', async () => {
    const result = await ready(async () => ({ selectors: deep, detect: idle }));
    expect(result.status).toBe(200);
    expect(result.body).toEqual({
      status: 'ready',
      checks: { postgres: 'ok' },
      backlog: {
        selectors: { waiting: 271, delayed: 2, active: 16, oldest_waiting_seconds: 14.2 },
        detect: { waiting: 0, delayed: 0, active: 0, oldest_waiting_seconds: 0 },
      },
    });
  });

  it('leaves the backlog out when it cannot be read; a failing check still answers 503', async () => {
    const failing = {
      name: 'queues',
      check: async () => {
        throw new Error('down');
      },
    };
    const result = await ready(async () => {
      throw new Error('redis down');
    }, [ok, failing]);
    expect(result.status).toBe(503);
    expect(result.body).toEqual({
      error: 'Service not ready',
      status: 'not-ready',
      checks: { postgres: 'ok', queues: 'unavailable' },
    });
  });
});
