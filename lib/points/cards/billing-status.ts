import type { Organization } from "@/lib/db/schema";
import type { Services } from "../services";
import { type BillingProblemCode, isBillingProblem } from "./billing-problems";
import { listUsablePaymentMethods } from "./payment-methods";

/**
 * Whether the provider refuses this organisation for a lasting reason, for pages that do not list
 * cards themselves (the Overview). A passing outage is null here: those pages have nothing to wait for.
 */
export async function currentBillingProblem(
  services: Services,
  organization: Pick<Organization, "id" | "billingCustomerId">,
): Promise<BillingProblemCode | null> {
  try {
    await listUsablePaymentMethods(services, organization);
    return null;
  } catch (error) {
    return isBillingProblem(error) ? error.code : null;
  }
}
