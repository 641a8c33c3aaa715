import type { Server } from 'node:http';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { silentLogger } from '../infra/logger.ts';
import { closeServer, listen, request } from '../test/support/api.ts';
import { errorHandler, HttpError } from './errors.ts';
import { openApiDocument } from './openapi.ts';
import { mountRoutes, route } from './route.ts';

/** One declaration drives mounting, request validation, the OpenAPI document and the response check. */

const item = z.strictObject({ id: z.number().int(), name: z.string() });
const routes = [
  route({
    method: 'get',
    path: '/items/:id',
    tag: 'Items',
    auth: 'none',
    summary: 'An item',
    params: z.object({ id: z.string().regex(/^\d+$/, 'must be digits').transform(Number) }),
    query: z.object({ shape: z.enum(['right', 'extra', 'missing', 'teapot']).default('right') }),
    responses: { 200: { description: 'The item', schema: item }, 404: { description: 'none' } },
    handler({ params, query }, _req, res) {
      if (params.id === 0) throw new HttpError(404, 'Item not found');
      if (query.shape === 'teapot') return void res.status(203).json({ id: 1, name: 'tea' });
      if (query.shape === 'extra') return { id: params.id, name: 'x', secret: 'leaked' };
      if (query.shape === 'missing') return { id: params.id };
      return { id: params.id, name: 'x' };
    },
  }),
];

let server: Server;
let base: string;
beforeAll(async () => {
  const app = express();
  mountRoutes(app, routes, { validateResponses: true });
  app.use(errorHandler(silentLogger));
  ({ server, base } = await listen(app));
});
afterAll(() => closeServer(server));

describe('route declarations', () => {
  it('validate the request with the declared schemas: 400 naming the field', async () => {
    const r = await request(`${base}/items/abc`);
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ error: 'id: must be digits' });
    expect((await request(`${base}/items/1?shape=round`)).body).toMatchObject({
      error: expect.stringContaining('shape'),
    });
  });

  it('an answer that agrees with its schema passes untouched; errors are checked against the error shape', async () => {
    expect(await request(`${base}/items/7`)).toMatchObject({
      status: 200,
      body: { id: 7, name: 'x' },
    });
    expect(await request(`${base}/items/0`)).toMatchObject({
      status: 404,
      body: { error: 'Item not found' },
    });
  });

  it.each([
    ['extra', /secret/],
    ['missing', /name/],
    ['teapot', /status 203 is not declared/],
  ])(
    'an answer with %s fields or status becomes a 500 naming the disagreement',
    async (shape, problem) => {
      const r = await request(`${base}/items/7?shape=${shape}`);
      expect(r.status).toBe(500);
      expect((r.body as { error: string }).error).toMatch(
        /GET \/items\/:id disagrees with its schema/,
      );
      expect((r.body as { error: string }).error).toMatch(problem);
    },
  );

  it('the OpenAPI document renders the same declaration: path, parameters, response schema', () => {
    const doc = openApiDocument(routes, { title: 't', version: '1' }) as {
      paths: Record<
        string,
        Record<
          string,
          {
            parameters: { name: string; in: string }[];
            responses: Record<string, { content?: Record<string, { schema: unknown }> }>;
          }
        >
      >;
    };
    const op = doc.paths['/items/{id}']!.get!;
    expect(op.parameters.map((p) => `${p.in}:${p.name}`)).toEqual(['path:id', 'query:shape']);
    expect(op.responses['200']!.content!['application/json']!.schema).toMatchObject({
      type: 'object',
      required: ['id', 'name'],
      additionalProperties: false,
    });
    expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['200', '400', '404', '500']));
  });
});
