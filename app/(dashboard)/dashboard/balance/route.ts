// GET /dashboard/balance – the signed-in organisation's Points balance (and Points held by disputes, and its low-balance threshold), for the header after each navigation
import { getSessionUser } from "@/lib/dashboard/session";
import { getBalances } from "@/lib/points/after-payment/view";
import { lowBalanceThresholdOf } from "@/lib/points/recharge/load-balance-alerts";
import { getRuntime } from "@/lib/server/runtime";

export const dynamic = "force-dynamic";

export async function GET(): Promise<Response> {
  const user = await getSessionUser();
  if (!user) return Response.json({ error: "Sign in to see the balance." }, { status: 401 });
  const runtime = await getRuntime();
  const [balances, lowBalanceThreshold] = await Promise.all([
    getBalances(runtime.db, user.organizationId),
    lowBalanceThresholdOf(runtime.db, user.organizationId),
  ]);
  return Response.json(
    {
      points_balance: balances.pointsBalance,
      held_points: balances.heldPoints,
      held_disputes: balances.heldDisputes,
      low_balance_threshold: lowBalanceThreshold,
    },
    { headers: { "Cache-Control": "no-store" } },
  );
}
