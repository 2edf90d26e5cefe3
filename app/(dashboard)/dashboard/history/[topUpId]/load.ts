import type { PurchaseArrival } from "@/components/dashboard/buy-outcome";
import type { PurchaseState } from "@/components/dashboard/purchase/purchase";
import type { DashboardContext } from "@/lib/dashboard/context";
import { loadAfterPayment } from "@/lib/points/after-payment/view";
import { getPointsBalance } from "@/lib/points/balance/ledger";
import { getTopUp } from "@/lib/points/purchase/top-ups";
import { needsAttention } from "@/lib/points/views/attention";
import { paymentMethodLabels, purchaseCardLabel } from "@/lib/points/views/history";

export type SearchParams = Record<string, string | string[] | undefined>;

/** The purchase page: another organisation's purchase is `missing`, exactly like one that does not exist. */
export type PurchasePageState = { kind: "missing" } | ({ kind: "purchase" } & PurchaseState);

/** One purchase as it is now, with the organisation's balance, its card's label and what happened after payment. */
export async function loadPurchasePage(
  { user, runtime, organization }: DashboardContext,
  topUpId: string,
  query: SearchParams,
): Promise<PurchasePageState> {
  const arrival = arrivalOf(query);
  const topUp = await getTopUp(runtime.db, organization.id, topUpId);
  if (!topUp) return { kind: "missing" };
  const [pointsBalance, labels, afterPayment] = await Promise.all([
    getPointsBalance(runtime.db, organization.id),
    paymentMethodLabels(runtime, organization),
    loadAfterPayment(runtime.db, topUp, runtime.provider),
  ]);
  return {
    kind: "purchase",
    topUp,
    arrival,
    pointsBalance,
    afterPayment,
    cardLabel: purchaseCardLabel(topUp, labels) ?? topUp.paymentSourceId,
    attention: needsAttention(topUp, new Date()),
    isAdmin: user.role === "admin",
    organizationName: organization.name,
    simulatedAuthentication: Boolean(runtime.provider.testMode?.completeAuthentication),
  };
}

/** `?bought=1`, `?replayed=1` or `?checked=1`, as the buy actions redirect here; nothing else counts. */
function arrivalOf(query: SearchParams): PurchaseArrival {
  if (query.replayed === "1") return "replayed";
  if (query.checked === "1") return "checked";
  if (query.bought === "1") return "bought";
  return undefined;
}
