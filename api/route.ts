import type { Express, Request, RequestHandler, Response } from 'express';
import { z } from 'zod';
import { describeZodError, HttpError } from './errors.ts';

/**
 * One declaration per route: path, method, request schemas, response schemas and handler. The
 * app mounts it (validating path, query and body with its schemas), the OpenAPI document renders
 * it (api/openapi.ts), and, with `validateResponses`, every answer is checked against the schema
 * declared for its status, so a route cannot drift from its documentation unnoticed.
 */

export type RouteAuth = 'none' | 'bearer' | 'pro';

export interface ResponseSpec {
  description: string;
  /** JSON body schema; absent for non-JSON answers (streams) and the shared error shape. */
  schema?: z.ZodType;
  /** Non-JSON content types this status answers with (e.g. application/x-ndjson). */
  content?: Record<string, { description: string }>;
}

export interface RouteInput<P extends z.ZodType, Q extends z.ZodType, B extends z.ZodType> {
  params: z.output<P>;
  query: z.output<Q>;
  body: z.output<B>;
}

export interface RouteSpec<
  P extends z.ZodType = z.ZodType,
  Q extends z.ZodType = z.ZodType,
  B extends z.ZodType = z.ZodType,
> {
  method: 'get' | 'post' | 'put' | 'delete';
  /** Express style: /api/tokens/:address */
  path: string;
  summary: string;
  description?: string;
  tag: string;
  auth: RouteAuth;
  /** Authentication, plan and throttling middleware, run before any validation. */
  guard?: RequestHandler[];
  params?: P;
  query?: Q;
  body?: B;
  /**
   * A body taken as raw bytes, not parsed (the billing webhook, whose signature covers the exact
   * bytes): the handler reads req.body as a Buffer. Mounted with express.raw by the app.
   */
  rawBody?: { contentType: string; description: string };
  /** The status a returned value is sent with (default: the first 2xx of `responses`). */
  status?: number;
  responses: Record<number, ResponseSpec>;
  /**
   * Returns the body to send as JSON, or undefined when it answered itself (a cached
   * serialization, a stream).
   */
  handler: (input: RouteInput<P, Q, B>, req: Request, res: Response) => Promise<unknown> | unknown;
}

/** Keeps the generic parameters of one declaration while collecting routes of different shapes. */
export function route<
  P extends z.ZodType = z.ZodUndefined,
  Q extends z.ZodType = z.ZodUndefined,
  B extends z.ZodType = z.ZodUndefined,
>(spec: RouteSpec<P, Q, B>): RouteSpec {
  return spec as unknown as RouteSpec;
}

export function parseOr400<T extends z.ZodType>(schema: T, value: unknown): z.output<T> {
  const result = schema.safeParse(value);
  if (!result.success) throw new HttpError(400, describeZodError(result.error));
  return result.data;
}

export const errorBody = z
  .strictObject({ error: z.string() })
  .meta({ id: 'Error', description: 'Every error answer: `{"error": "<message>"}`.' });

/** The schema an answer with this status must match; undefined: the route declared none for it. */
export function responseSchema(spec: RouteSpec, status: number): z.ZodType | undefined {
  if (status >= 400) return errorBody;
  return spec.responses[status]?.schema;
}

/**
 * Wraps res.send so that a JSON answer that disagrees with its declared schema becomes a 500
 * naming the disagreement: on in tests, where a wrong shape must fail loudly.
 */
function checkResponses(spec: RouteSpec): RequestHandler {
  return (_req, res, next) => {
    const send = res.send.bind(res);
    res.send = (body?: unknown) => {
      const type = String(res.get('Content-Type') ?? '');
      if (typeof body !== 'string' || !type.startsWith('application/json')) return send(body);
      const schema = responseSchema(spec, res.statusCode);
      const problem =
        schema === undefined
          ? `status ${res.statusCode} is not declared`
          : (() => {
              const result = schema.safeParse(JSON.parse(body));
              return result.success ? undefined : describeZodError(result.error);
            })();
      if (problem === undefined) return send(body);
      res.status(500);
      return send(
        JSON.stringify({
          error: `response of ${spec.method.toUpperCase()} ${spec.path} disagrees with its schema: ${problem}`,
        }),
      );
    };
    next();
  };
}

export function mountRoutes(
  app: Express,
  routes: readonly RouteSpec[],
  options: { validateResponses?: boolean } = {},
): void {
  for (const spec of routes) {
    const success =
      spec.status ?? Number(Object.keys(spec.responses).find((s) => s.startsWith('2')) ?? 200);
    const handler: RequestHandler = async (req, res) => {
      const input = {
        params: spec.params ? parseOr400(spec.params, req.params) : undefined,
        query: spec.query ? parseOr400(spec.query, req.query) : undefined,
        body: spec.body ? parseOr400(spec.body, req.body ?? {}) : undefined,
      };
      const result = await spec.handler(
        input as RouteInput<z.ZodType, z.ZodType, z.ZodType>,
        req,
        res,
      );
      if (result !== undefined && !res.headersSent) res.status(success).json(result);
    };
    const chain = [
      ...(options.validateResponses ? [checkResponses(spec)] : []),
      ...(spec.guard ?? []),
      handler,
    ];
    app[spec.method](spec.path, ...chain);
  }
}
