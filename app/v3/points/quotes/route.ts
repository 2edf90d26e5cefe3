// POST /v3/points/quotes – what a purchase with these terms would do now; buys nothing, records nothing
import { handleApi, otherMethods, readJsonBody, successResponse } from "@/lib/http/api";
import { authenticateApiCaller } from "@/lib/points/accounts/api-keys";
import { toQuoteJson } from "@/lib/points/api/json";
import { parseQuoteRequest } from "@/lib/points/api/top-up-request";
import { quotePurchase } from "@/lib/points/purchase";
import { getRuntime } from "@/lib/server/runtime";

export const dynamic = "force-dynamic";

export function POST(request: Request): Promise<Response> {
  return handleApi(request, async (requestId) => {
    const runtime = await getRuntime();
    const { organization, key } = await authenticateApiCaller(
      runtime.db,
      request.headers.get("authorization"),
      runtime.clock,
    );
    const quoteRequest = parseQuoteRequest(await readJsonBody(request));
    const quote = await quotePurchase(runtime, organization, quoteRequest, key);
    return successResponse(200, { quote: toQuoteJson(quote) }, requestId);
  });
}

const { notAllowed, options } = otherMethods("POST", "Use POST to quote a purchase at /v3/points/quotes.");

export { notAllowed as GET, notAllowed as PUT, notAllowed as PATCH, notAllowed as DELETE, options as OPTIONS };
