// GET /dashboard/buy/:id/return – where the billing provider's authentication page sends the cardholder back
import { getSessionUser } from "@/lib/dashboard/session";
import { seeOther } from "@/lib/http/see-other";
import { log } from "@/lib/observability/log";
import { settleOnReturn } from "@/lib/points/purchase/complete-authentication";
import { getRuntime } from "@/lib/server/runtime";

export const dynamic = "force-dynamic";

/**
 * Settles the purchase as a retry would (asks the provider about the same payment, credits at
 * most once; the webhook may be doing it at that moment), then shows it. Nothing in the query
 * string is trusted: the provider is asked.
 */
export async function GET(_request: Request, { params }: { params: Promise<{ topUpId: string }> }): Promise<Response> {
  const { topUpId } = await params;
  const user = await getSessionUser();
  if (!user) return seeOther("/signin");
  const runtime = await getRuntime();
  await settleOnReturn(runtime, { organizationId: user.organizationId, topUpId, leaseMs: runtime.leaseMs }).catch(
    (error: unknown) => {
      // The page shows the purchase as it is; the webhook or the reconciler settles it.
      log().warn(
        { event: "settle_on_return_failed", top_up_id: topUpId, error },
        `Settling ${topUpId} on return failed: ${error instanceof Error ? error.message : String(error)}`,
      );
    },
  );
  return seeOther(`/dashboard/history/${encodeURIComponent(topUpId)}?bought=1`);
}
