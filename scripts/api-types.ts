import { writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import openapiTS, { astToString, type OpenAPI3 } from 'openapi-typescript';
import { apiDocument } from '../api/document.ts';

/**
 * The web app's API types, generated from the OpenAPI document the API serves (api/document.ts
 * builds it in this process, no server): `npm run generate:api-types` writes
 * web/src/api-types.ts, and scripts/api-types.test.ts fails when the committed file is stale, so
 * the browser and the server cannot disagree on a field or a word (RISK_LEVELS, plans, …).
 */

export const API_TYPES_FILE = fileURLToPath(new URL('../web/src/api-types.ts', import.meta.url));

const HEADER = `/**
 * The API's types, generated from its OpenAPI document by \`npm run generate:api-types\`
 * (scripts/api-types.ts, openapi-typescript). Do not edit: regenerate. A test fails when this
 * file no longer matches the document. web/src/api.ts names the shapes the app reads.
 */

`;

export async function renderApiTypes(): Promise<string> {
  const document = (await apiDocument()) as unknown as OpenAPI3;
  const ast = await openapiTS(document, { enumValues: true });
  return HEADER + astToString(ast);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  writeFileSync(API_TYPES_FILE, await renderApiTypes());
  console.log(`wrote ${API_TYPES_FILE}`);
}
