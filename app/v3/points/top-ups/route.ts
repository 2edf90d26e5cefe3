// POST /v3/points/top-ups – buy a bundle of Points with a saved payment method
import { handleApi, otherMethods, purchaseResponse, readJsonBody } from "@/lib/http/api";
import { authenticateApiRequest } from "@/lib/points/api-keys";
import { purchasePoints } from "@/lib/points/purchase";
import { parseTopUpRequest } from "@/lib/points/top-up-request";
import { getRuntime } from "@/lib/server/runtime";

export const dynamic = "force-dynamic";

export function POST(request: Request): Promise<Response> {
  return handleApi(request, async (requestId) => {
    const runtime = await getRuntime();
    const organization = await authenticateApiRequest(runtime.db, request.headers.get("authorization"), runtime.clock);
    const topUpRequest = parseTopUpRequest(await readJsonBody(request));
    const result = await purchasePoints(
      runtime,
      { organization, request: topUpRequest, source: "api" },
      { leaseMs: runtime.leaseMs },
    );
    return purchaseResponse(result, requestId);
  });
}

const { notAllowed, options } = otherMethods("POST", "Use POST to buy Points at /v3/points/top-ups.");

export { notAllowed as GET, notAllowed as PUT, notAllowed as PATCH, notAllowed as DELETE, options as OPTIONS };
