// GET /v3/points/payment-methods – the saved payment methods an API purchase can use
import { handleApi, otherMethods, successResponse } from "@/lib/http/api";
import { authenticateApiRequest } from "@/lib/points/accounts/api-keys";
import { toPaymentMethodJson } from "@/lib/points/api/json";
import { listUsablePaymentMethods } from "@/lib/points/cards/payment-methods";
import { getRuntime } from "@/lib/server/runtime";

export const dynamic = "force-dynamic";

export function GET(request: Request): Promise<Response> {
  return handleApi(request, async (requestId) => {
    const runtime = await getRuntime();
    const organization = await authenticateApiRequest(runtime.db, request.headers.get("authorization"), runtime.clock);
    const methods = await listUsablePaymentMethods(runtime, organization);
    return successResponse(200, { payment_methods: methods.map(toPaymentMethodJson) }, requestId);
  });
}

const { notAllowed, options } = otherMethods("GET", "Use GET to list payment methods at /v3/points/payment-methods.");

export { notAllowed as POST, notAllowed as PUT, notAllowed as PATCH, notAllowed as DELETE, options as OPTIONS };
