import { z } from 'zod';

import { errorBody, type ResponseSpec, type RouteSpec } from './route.ts';
import { eventMessage } from './token-schemas.ts';

/**
 * OpenAPI 3.1 from the route declarations (api/route.ts): the very schemas each route validates
 * its requests with and is tested against, so the document cannot drift from the code. Request
 * schemas are rendered on their input side (what a client sends).
 */

const RATE_HEADERS = {
  'X-RateLimit-Limit': {
    description: 'Limit of the tightest window (the one with the fewest requests left).',
    schema: { type: 'integer' },
  },
  'X-RateLimit-Remaining': {
    description: 'Requests left in that window.',
    schema: { type: 'integer' },
  },
  'X-RateLimit-Reset': {
    description: 'When that window resets, in Unix epoch seconds.',
    schema: { type: 'integer' },
  },
} as const;
const RETRY_AFTER = {
  'Retry-After': { description: 'Seconds to wait before retrying.', schema: { type: 'integer' } },
} as const;

function toJson(
  schema: z.ZodType,
  io: 'input' | 'output',
  defs: Record<string, unknown>,
): Record<string, unknown> {
  const json = z.toJSONSchema(schema, {
    io,
    unrepresentable: 'any',
    target: 'draft-2020-12',
    reused: 'inline',
  }) as Record<string, unknown>;
  const { $schema: _s, $defs, ...rest } = json;
  // Named schemas (meta id) become components; references are rewritten to point there.
  for (const [name, def] of Object.entries(($defs ?? {}) as Record<string, unknown>))
    defs[name] = rewriteRefs(def);
  return rewriteRefs(rest) as Record<string, unknown>;
}

function rewriteRefs(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(rewriteRefs);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [
        k,
        k === '$ref' && typeof v === 'string'
          ? v.replace('#/$defs/', '#/components/schemas/')
          : rewriteRefs(v),
      ]),
    );
  }
  return value;
}

function parameters(
  where: 'path' | 'query',
  schema: z.ZodType | undefined,
  defs: Record<string, unknown>,
) {
  if (!(schema instanceof z.ZodObject)) return [];
  return Object.entries(schema.shape).map(([name, field]) => {
    const f = field as z.ZodType;
    const json = toJson(f, 'input', defs);
    const description =
      (f.meta()?.description as string | undefined) ?? (json.description as string | undefined);
    return {
      name,
      in: where,
      required: where === 'path' ? true : !f.safeParse(undefined).success,
      ...(description ? { description } : {}),
      schema: json,
    };
  });
}

const ERROR_REF = { $ref: '#/components/schemas/Error' };

const errorResponse = (description: string, headers?: Record<string, unknown>) => ({
  description,
  ...(headers ? { headers } : {}),
  content: { 'application/json': { schema: ERROR_REF } },
});

function contentOf(r: ResponseSpec, defs: Record<string, unknown>) {
  if (r.schema) return { 'application/json': { schema: toJson(r.schema, 'output', defs) } };
  if (!r.content) return undefined;
  return Object.fromEntries(
    Object.entries(r.content).map(([type, c]) => [
      type,
      { schema: { type: 'string', description: c.description } },
    ]),
  );
}

/** The declared answers, then the errors every route of its kind can give. */
function responsesOf(spec: RouteSpec, defs: Record<string, unknown>) {
  const responses: Record<string, unknown> = {};
  const limited = spec.auth !== 'none';
  for (const [status, r] of Object.entries(spec.responses)) {
    const content = contentOf(r, defs);
    responses[status] = {
      description: r.description,
      ...(limited ? { headers: RATE_HEADERS } : {}),
      ...(content ? { content } : {}),
    };
  }
  if (spec.params || spec.query || spec.body) {
    responses['400'] ??= errorResponse(
      'Malformed path, query or body: the message names the field and why.',
    );
  }
  if (limited) {
    responses['401'] ??= errorResponse(
      'Missing, invalid, expired or revoked credential: `Unauthorized. Please log in again.`',
    );
    responses['429'] ??= errorResponse('`Rate limit exceeded. Please try again later.`', {
      ...RATE_HEADERS,
      ...RETRY_AFTER,
    });
  }
  responses['500'] = errorResponse('`Internal server error`');
  const unavailable = 'Postgres or Redis unreachable: `Service temporarily unavailable`';
  const declared = spec.responses[503]?.description;
  responses['503'] = errorResponse(
    declared ? `${declared}; or ${unavailable}` : unavailable,
    RETRY_AFTER,
  );
  return responses;
}

const SECURITY: Record<RouteSpec['auth'], unknown[]> = {
  none: [],
  pro: [{ apiKey: [] }, { bearer: [] }],
  bearer: [{ bearer: [] }],
};

function operationOf(spec: RouteSpec, path: string, defs: Record<string, unknown>) {
  const words = path.replace(/[{}]/g, '').split(/[/_-]/).filter(Boolean);
  return {
    operationId: `${spec.method}${words.map((p) => p[0]!.toUpperCase() + p.slice(1)).join('')}`,
    summary: spec.summary,
    ...(spec.description ? { description: spec.description } : {}),
    tags: [spec.tag],
    security: SECURITY[spec.auth],
    parameters: [
      ...parameters('path', spec.params, defs),
      ...parameters('query', spec.query, defs),
    ],
    ...(spec.body
      ? {
          requestBody: {
            required: true,
            content: { 'application/json': { schema: toJson(spec.body, 'input', defs) } },
          },
        }
      : {}),
    ...(spec.rawBody
      ? {
          requestBody: {
            required: true,
            description: spec.rawBody.description,
            content: { [spec.rawBody.contentType]: { schema: { type: 'string' } } },
          },
        }
      : {}),
    responses: responsesOf(spec, defs),
  };
}

export function openApiDocument(
  routes: readonly RouteSpec[],
  info: { title: string; version: string; description?: string },
) {
  const defs: Record<string, unknown> = {};
  const paths: Record<string, Record<string, unknown>> = {};
  toJson(errorBody, 'output', defs);
  // The WebSocket's messages are no operation, but their shape is part of the contract: as the
  // component LiveEvent, the web app's types are generated from them too.
  toJson(eventMessage, 'output', defs);
  for (const spec of routes) {
    const path = spec.path.replace(/:([A-Za-z_]+)/g, '{$1}');
    paths[path] ??= {};
    paths[path][spec.method] = operationOf(spec, path, defs);
  }
  return {
    openapi: '3.1.0',
    info,
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    servers: [{ url: '/' }],
    paths,
    components: {
      schemas: defs,
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description: 'A JWT from /api/auth/signin, or a PRO API key.',
        },
        apiKey: {
          type: 'apiKey',
          in: 'header',
          name: 'X-API-Key',
          description: 'A PRO API key (svc_pro_…), for the /api/pro operations.',
        },
      },
    },
  };
}
