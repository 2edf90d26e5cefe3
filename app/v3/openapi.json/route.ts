// GET /v3/openapi.json – the API's OpenAPI 3.1 document, generated from the zod schemas once per process
import { handleApi, otherMethods } from "@/lib/http/api";
import { openApiDocument } from "@/lib/openapi/document";

// Answered per request, as every /v3 answer is, so that each carries its own X-Request-Id.
export const dynamic = "force-dynamic";

let documentText: string | undefined;

export function GET(request: Request): Promise<Response> {
  return handleApi(request, async (requestId) => {
    documentText ??= JSON.stringify(openApiDocument());
    return new Response(documentText, {
      headers: {
        "Content-Type": "application/json; charset=utf-8",
        "Cache-Control": "public, max-age=300",
        "Access-Control-Allow-Origin": "*",
        "X-Content-Type-Options": "nosniff",
        "X-Request-Id": requestId,
      },
    });
  });
}

const { notAllowed, options } = otherMethods("GET", "The OpenAPI document is read with GET /v3/openapi.json.");

export { notAllowed as POST, notAllowed as PUT, notAllowed as PATCH, notAllowed as DELETE, options as OPTIONS };
