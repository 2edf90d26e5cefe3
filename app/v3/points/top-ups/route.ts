// POST /v3/points/top-ups – buy a bundle of Points with a saved payment method
// GET /v3/points/top-ups – list the organisation's purchases, newest first
import { handleApi, otherMethods, purchaseResponse, readJsonBody, successResponse } from "@/lib/http/api";
import { authenticateApiPurchase, authenticateApiRequest } from "@/lib/points/accounts/api-keys";
import { toTopUpJson } from "@/lib/points/api/json";
import { parseTopUpListQuery } from "@/lib/points/api/top-up-list";
import { parseTopUpRequest } from "@/lib/points/api/top-up-request";
import { purchasePoints } from "@/lib/points/purchase";
import { readerOf } from "@/lib/points/services";
import { listTopUpsPage } from "@/lib/points/views/top-up-list";
import { trackInFlight } from "@/lib/server/lifecycle";
import { getRuntime } from "@/lib/server/runtime";

export const dynamic = "force-dynamic";

export function POST(request: Request): Promise<Response> {
  return handleApi(request, async (requestId) => {
    const runtime = await getRuntime();
    const { organization, key } = await authenticateApiPurchase(
      runtime.db,
      request.headers.get("authorization"),
      runtime.clock,
    );
    const topUpRequest = parseTopUpRequest(await readJsonBody(request));
    const result = await trackInFlight(() =>
      purchasePoints(
        runtime,
        { organization, request: topUpRequest, source: "api", apiKey: key },
        { leaseMs: runtime.leaseMs },
      ),
    );
    return purchaseResponse(result, requestId);
  });
}

export function GET(request: Request): Promise<Response> {
  return handleApi(request, async (requestId) => {
    const runtime = await getRuntime();
    const organization = await authenticateApiRequest(runtime.db, request.headers.get("authorization"), runtime.clock);
    const query = parseTopUpListQuery(new URL(request.url).searchParams);
    const page = await listTopUpsPage(readerOf(runtime), organization.id, query);
    return successResponse(200, { top_ups: page.topUps.map(toTopUpJson), has_more: page.hasMore }, requestId);
  });
}

const { notAllowed, options } = otherMethods(
  "GET, POST",
  "Use POST to buy Points, or GET to list purchases, at /v3/points/top-ups.",
);

export { notAllowed as PUT, notAllowed as PATCH, notAllowed as DELETE, options as OPTIONS };
