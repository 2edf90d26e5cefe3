/**
 * The TypeScript types of the API for openapi-fetch, generated from the OpenAPI document by
 * openapi-typescript. `npm run openapi:types` writes them to e2e/client/api.d.ts; a vitest fails
 * when that file is not what the document generates now.
 */
import openapiTS, { astToString } from "openapi-typescript";
import { openApiDocument } from "./document";

export const CLIENT_TYPES_FILE = "e2e/client/api.d.ts";

export async function generateClientTypes(): Promise<string> {
  const ast = await openapiTS(structuredClone(openApiDocument()) as never, { exportType: true });
  return `// Generated from GET /v3/openapi.json by \`npm run openapi:types\` (openapi-typescript). Do not edit.\n${astToString(ast)}`;
}
