// GET /v3/points/balance – the balance, the limits as they stand, and when a purchase may next pass them
import { handleApi, otherMethods, successResponse } from "@/lib/http/api";
import { authenticateApiCaller } from "@/lib/points/accounts/api-keys";
import { toBalanceJson } from "@/lib/points/api/json";
import { getBalance } from "@/lib/points/balance/balance";
import { getRuntime } from "@/lib/server/runtime";

export const dynamic = "force-dynamic";

export function GET(request: Request): Promise<Response> {
  return handleApi(request, async (requestId) => {
    const runtime = await getRuntime();
    const { organization, key } = await authenticateApiCaller(
      runtime.db,
      request.headers.get("authorization"),
      runtime.clock,
    );
    const balance = await getBalance(runtime.db, organization, runtime.clock.now(), key);
    return successResponse(200, toBalanceJson(balance), requestId);
  });
}

const { notAllowed, options } = otherMethods("GET", "Use GET to read the balance at /v3/points/balance.");

export { notAllowed as POST, notAllowed as PUT, notAllowed as PATCH, notAllowed as DELETE, options as OPTIONS };
