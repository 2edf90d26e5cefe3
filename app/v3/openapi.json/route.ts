// GET /v3/openapi.json – the API's OpenAPI 3.1 document, built at build time from the zod schemas
import { openApiDocument } from "@/lib/openapi/document";

export const dynamic = "force-static";

export function GET(): Response {
  return new Response(JSON.stringify(openApiDocument()), {
    headers: {
      "Content-Type": "application/json; charset=utf-8",
      "Cache-Control": "public, max-age=300",
      "Access-Control-Allow-Origin": "*",
      "X-Content-Type-Options": "nosniff",
    },
  });
}
