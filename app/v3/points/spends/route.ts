// POST /v3/points/spends – spend Points from the spendable balance, idempotently by reference
// GET /v3/points/spends – list the organisation's spends, newest first
import { deferredAfterAnswer, handleApi, otherMethods, readJsonBody, successResponse } from "@/lib/http/api";
import { authenticateApiRequest, authenticateApiSpend } from "@/lib/points/accounts/api-keys";
import { toSpendJson } from "@/lib/points/api/json";
import { parseSpendListQuery, parseSpendRequest } from "@/lib/points/api/spend-request";
import { readerOf } from "@/lib/points/services";
import { listSpends, spendPoints } from "@/lib/points/spends/spends";
import { getRuntime } from "@/lib/server/runtime";

export const dynamic = "force-dynamic";

export function POST(request: Request): Promise<Response> {
  return handleApi(request, async (requestId) => {
    const runtime = await getRuntime();
    const { organization, key } = await authenticateApiSpend(
      runtime.db,
      request.headers.get("authorization"),
      runtime.clock,
    );
    const spendRequest = parseSpendRequest(await readJsonBody(request));
    // The recharge a crossing calls for runs once the answer is sent, never inside this request.
    const result = await spendPoints(deferredAfterAnswer(runtime), {
      organizationId: organization.id,
      request: spendRequest,
      source: "api",
      apiKeyId: key.id,
    });
    return successResponse(
      result.replayed ? 200 : 201,
      { spend: toSpendJson(result.spend), points_balance: result.pointsBalance },
      requestId,
      result.replayed ? { "Idempotent-Replayed": "true" } : undefined,
    );
  });
}

export function GET(request: Request): Promise<Response> {
  return handleApi(request, async (requestId) => {
    const runtime = await getRuntime();
    const organization = await authenticateApiRequest(runtime.db, request.headers.get("authorization"), runtime.clock);
    const query = parseSpendListQuery(new URL(request.url).searchParams);
    const page = await listSpends(readerOf(runtime), organization.id, query);
    return successResponse(200, { spends: page.spends.map(toSpendJson), has_more: page.hasMore }, requestId);
  });
}

const { notAllowed, options } = otherMethods(
  "GET, POST",
  "Use POST to spend Points, or GET to list spends, at /v3/points/spends.",
);

export { notAllowed as PUT, notAllowed as PATCH, notAllowed as DELETE, options as OPTIONS };
