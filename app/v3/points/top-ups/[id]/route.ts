// GET /v3/points/top-ups/{id} – one of the organisation's purchases
import { handleApi, otherMethods, successResponse } from "@/lib/http/api";
import { authenticateApiRequest } from "@/lib/points/accounts/api-keys";
import { toTopUpJson } from "@/lib/points/api/json";
import { getTopUpOrThrow } from "@/lib/points/views/top-up-list";
import { getRuntime } from "@/lib/server/runtime";

export const dynamic = "force-dynamic";

export function GET(request: Request, context: { params: Promise<{ id: string }> }): Promise<Response> {
  return handleApi(request, async (requestId) => {
    const runtime = await getRuntime();
    const organization = await authenticateApiRequest(runtime.db, request.headers.get("authorization"), runtime.clock);
    const { id } = await context.params;
    const topUp = await getTopUpOrThrow(runtime.db, organization.id, id);
    return successResponse(200, { top_up: toTopUpJson(topUp) }, requestId);
  });
}

const { notAllowed, options } = otherMethods("GET", "Use GET to read a top-up at /v3/points/top-ups/{id}.");

export { notAllowed as POST, notAllowed as PUT, notAllowed as PATCH, notAllowed as DELETE, options as OPTIONS };
