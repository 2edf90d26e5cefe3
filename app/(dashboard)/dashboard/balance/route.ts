// GET /dashboard/balance – the signed-in organisation's Points balance, for the header after each navigation
import { getSessionUser } from "@/lib/auth/session";
import { getPointsBalance } from "@/lib/points/ledger";
import { getRuntime } from "@/lib/server/runtime";

export const dynamic = "force-dynamic";

export async function GET(): Promise<Response> {
  const user = await getSessionUser();
  if (!user) return Response.json({ error: "Sign in to see the balance." }, { status: 401 });
  const runtime = await getRuntime();
  const pointsBalance = await getPointsBalance(runtime.db, user.organizationId);
  return Response.json({ points_balance: pointsBalance }, { headers: { "Cache-Control": "no-store" } });
}
