import type { Organization } from "@/lib/db/schema";
import type { Quote } from "../api/json";
import type { QuoteRequest } from "../api/top-up-request";
import type { KeyCap } from "../limits/limits";
import type { Services } from "../services";
import { checkNewPurchase, paidPointsExpireAt, readPrices, resolveNewPurchaseTerms } from "./start";

/**
 * Answers what purchasePoints would do with these terms now, or throws the PointsError of the
 * first check that would refuse it (docs/contract.md §4 steps 5, 6, 8, 9 and 10's price; step 7,
 * the reference, does not apply). It runs the purchase's own functions in the purchase's order,
 * charges nothing and writes nothing: no top-up row, no lease, nothing any limit counts. With the
 * API key it is asked with, the key's own daily cap refuses it as it would the key's purchase; a
 * read key may quote, and has no cap of its own to meet.
 */
export async function quotePurchase(
  services: Services,
  organization: Organization,
  request: QuoteRequest,
  apiKey?: KeyCap,
): Promise<Quote> {
  const { currency, method } = await resolveNewPurchaseTerms(services, organization, request);
  const priced = await readPrices(services);
  const now = services.clock.now();
  const amount = await checkNewPurchase(services.db, organization, request.points, currency, priced, now, apiKey);
  return {
    points: request.points,
    currency,
    amount,
    paymentMethod: method,
    pointsBalanceAfter: organization.pointsBalance + request.points,
    pointsExpireAt: paidPointsExpireAt(organization, now),
  };
}
