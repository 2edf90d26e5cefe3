import type { BuyChooseState } from "@/components/dashboard/buy/choose";
import type { BuyConfirmState } from "@/components/dashboard/buy/confirm";
import type { BuyUnavailableState } from "@/components/dashboard/buy/unavailable";
import type { DashboardContext } from "@/lib/dashboard/context";
import { randomString } from "@/lib/ids";
import { isPurchaseReference } from "@/lib/points/api/top-up-request";
import { isBillingProblem } from "@/lib/points/cards/billing-problems";
import { PointsError } from "@/lib/points/errors";
import { sameTerms } from "@/lib/points/purchase";
import { paidPointsExpireAt } from "@/lib/points/purchase/start";
import { getTopUpByReference } from "@/lib/points/purchase/top-ups";
import { type BuyOptions, buyCurrency, getBuyOptions } from "@/lib/points/views/buy-options";

export type SearchParams = Record<string, string | string[] | undefined>;

/**
 * What the Buy page shows: buying cannot start (the billing provider refuses this organisation, or
 * is unavailable for a moment), the first step (choose currency, bundle and card), or the second
 * (confirm the exact amount and the card, or say what the reference already bought).
 */
export type BuyPageState =
  | ({ kind: "unavailable" } & BuyUnavailableState)
  | ({ kind: "choose" } & BuyChooseState)
  | ({ kind: "confirm" } & BuyConfirmState);

const one = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

/**
 * Reads the Buy page's state from the URL. The purchase's reference is drawn here once and carried
 * through both steps in the URL and the form, so every re-send is the same purchase.
 */
export async function loadBuyPage(
  { user, runtime, organization }: DashboardContext,
  params: SearchParams,
): Promise<BuyPageState> {
  const currency = buyCurrency(organization, one(params.currency));
  const givenReference = one(params.ref) ?? "";
  const reference = isPurchaseReference(givenReference) ? givenReference : `dash_${randomString(20)}`;
  const isAdmin = user.role === "admin";

  let options: BuyOptions;
  try {
    options = await getBuyOptions(runtime, organization, {
      currency,
      points: Number(one(params.points)),
      methodId: one(params.method),
    });
  } catch (error) {
    if (!(error instanceof PointsError)) throw error;
    const problem = isBillingProblem(error) ? error.code : undefined;
    return { kind: "unavailable", currency, problem, message: error.message };
  }
  // The bundle and card in the URL if they can still be bought with; with no card chosen yet, the default.
  const { bundle, method } = options;
  const wantsConfirm = one(params.step) === "confirm";
  if (wantsConfirm && bundle && method) {
    // A confirmation reopened (the back button, a bookmark) after its reference was used: pressing Buy
    // would only answer that purchase again, so the page says what happened instead of offering to pay.
    const spent = await getTopUpByReference(runtime.db, organization.id, reference);
    const terms = { points: bundle.points, currency, paymentMethodId: method.id };
    return {
      kind: "confirm",
      currency,
      reference,
      isAdmin,
      organization,
      bundle,
      method,
      spent: spent && { topUp: spent, samePurchase: sameTerms(spent, terms) },
      pointsExpireAt: paidPointsExpireAt(organization, runtime.clock.now()),
    };
  }
  return { kind: "choose", currency, reference, isAdmin, organization, options, wantsConfirm };
}
