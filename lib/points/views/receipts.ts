import { and, asc, eq, isNotNull } from "drizzle-orm";
import { withDeadline } from "@/lib/billing/deadline";
import { type Refund, refunds, type TopUp } from "@/lib/db/schema";
import { log } from "@/lib/observability/log";
import { getOrganization } from "../accounts/organizations";
import { chargedElsewhere } from "../purchase/charged-by";
import { getTopUp } from "../purchase/top-ups";
import type { Services } from "../services";

export interface Receipt {
  organizationName: string;
  topUp: TopUp;
  /** The refunds that moved money, oldest first. */
  refunds: Refund[];
  /** The provider's own receipt of the charge (Stripe's receipt_url), when it has one and answers. */
  providerReceiptUrl: string | null;
}

/** A paid purchase of the organisation, with what a receipt shows; null for any other (not paid, or not its own). */
export async function getReceipt(services: Services, organizationId: string, topUpId: string): Promise<Receipt | null> {
  const topUp = await getTopUp(services.db, organizationId, topUpId);
  if (topUp?.status !== "paid") return null;
  const organization = await getOrganization(services.db, organizationId);
  const moved = await services.db
    .select()
    .from(refunds)
    .where(and(eq(refunds.topUpId, topUp.id), isNotNull(refunds.appliedAt)))
    .orderBy(asc(refunds.appliedAt));
  return {
    organizationName: organization?.name ?? organizationId,
    topUp,
    refunds: moved,
    providerReceiptUrl: await providerReceipt(services, topUp),
  };
}

/** Asked within the provider's budget; a receipt page still shows when the provider cannot say. */
async function providerReceipt(services: Services, topUp: TopUp): Promise<string | null> {
  const { provider } = services;
  if (!provider.receiptUrl || !topUp.providerPaymentId || chargedElsewhere(provider, topUp)) return null;
  try {
    return await withDeadline(provider.receiptUrl(topUp.providerPaymentId), provider.callBudgetMs);
  } catch (error) {
    log().warn(
      {
        event: "provider_receipt_unavailable",
        top_up_id: topUp.id,
        error: error instanceof Error ? error.message : String(error),
      },
      "The provider's receipt of a payment could not be read; the receipt page shows without its link.",
    );
    return null;
  }
}
