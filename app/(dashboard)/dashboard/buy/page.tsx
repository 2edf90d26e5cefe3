import type { Metadata } from "next";
import Form from "next/form";
import Link from "next/link";
import { BillingProblemNotice } from "@/components/dashboard/billing-problem-notice";
import { BuyBundlePicker } from "@/components/dashboard/buy-bundle-picker";
import { BuyCurrencySwitch } from "@/components/dashboard/buy-currency-switch";
import { BuyMethodPicker } from "@/components/dashboard/buy-method-picker";
import { BuyPurchaseForm } from "@/components/dashboard/buy-purchase-form";
import { BuySteps } from "@/components/dashboard/buy-steps";
import { Alert } from "@/components/ui/alert";
import { buttonClasses } from "@/components/ui/button";
import { Card, PageHeader } from "@/components/ui/card";
import type { Currency } from "@/lib/catalog";
import { dashboardContext } from "@/lib/dashboard/context";
import { formatDateTime, formatMoney, formatPoints } from "@/lib/format";
import { randomString } from "@/lib/ids";
import { isPurchaseReference } from "@/lib/points/api/top-up-request";
import { isBillingProblem } from "@/lib/points/cards/billing-problems";
import { PointsError } from "@/lib/points/errors";
import { sameTerms } from "@/lib/points/purchase";
import { getTopUpByReference } from "@/lib/points/purchase/top-ups";
import { type BuyOptions, buyCurrency, getBuyOptions } from "@/lib/points/views/buy-options";
import { buyPoints } from "./actions";

export const metadata: Metadata = { title: "Buy Points · Points" };

type SearchParams = Record<string, string | string[] | undefined>;

const one = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

/**
 * Buy Points in two server-rendered steps driven by the URL: choose (currency, bundle, card), then
 * confirm (the exact amount and the card) and buy. The purchase's reference is drawn here once
 * and carried through both steps in the URL and the form, so every re-send is the same purchase.
 */
export default async function BuyPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const { user, runtime, organization } = await dashboardContext();
  const params = await searchParams;

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
    if (isBillingProblem(error)) {
      return (
        <>
          <PageHeader title="Buy Points" />
          <BillingProblemNotice code={error.code} provider={runtime.provider} />
        </>
      );
    }
    return (
      <>
        <PageHeader title="Buy Points" />
        <Alert tone="warning" title="Buying is unavailable for a moment">
          <p>{error.message}</p>
          <p className="mt-2">
            <Link href={`/dashboard/buy?currency=${currency}`} className="font-semibold underline">
              Try again
            </Link>
          </p>
        </Alert>
      </>
    );
  }
  // The bundle and card in the URL if they can still be bought with; with no card chosen yet, the default.
  const { bundles, methods, bundle, method } = options;
  const wantsConfirm = one(params.step) === "confirm";

  const hrefFor = (next: Currency) => {
    const query = new URLSearchParams({ currency: next, ref: reference });
    if (bundle) query.set("points", String(bundle.points));
    if (method) query.set("method", method.id);
    return `/dashboard/buy?${query.toString()}`;
  };

  const header = (
    <PageHeader
      title="Buy Points"
      description="Points are added to your balance as soon as the payment succeeds. Prices come from our billing provider and include everything you pay."
    />
  );
  const memberNotice = !isAdmin && (
    <Alert tone="info" title="Only admins can buy Points">
      You can see the prices and cards here; ask an admin of {organization.name} to make the purchase.
    </Alert>
  );

  if (wantsConfirm && bundle && method) {
    const amount = formatMoney(bundle.amount, currency);
    const changeQuery = new URLSearchParams({
      currency,
      ref: reference,
      points: String(bundle.points),
      method: method.id,
    });
    // A confirmation reopened (the back button, a bookmark) after its reference was used: pressing Buy
    // would only answer that purchase again, so the page says what happened instead of offering to pay.
    const spent = await getTopUpByReference(runtime.db, organization.id, reference);
    const samePurchase = spent && sameTerms(spent, { points: bundle.points, currency, paymentMethodId: method.id });
    return (
      <>
        {header}
        <BuySteps current={samePurchase && spent.status === "paid" ? 3 : 2} />
        <div className="space-y-4">
          {memberNotice}
          {spent && (
            <Alert
              tone={samePurchase && spent.status === "paid" ? "success" : "warning"}
              title={
                !samePurchase
                  ? "This reference was already used for a different purchase"
                  : spent.status === "paid"
                    ? "Already bought"
                    : spent.status === "failed"
                      ? "Already tried: the payment was declined"
                      : "Already sent: waiting for the outcome"
              }
            >
              <p data-testid="spent-purchase">
                {samePurchase
                  ? `This purchase of ${formatPoints(spent.points)} Points for ${formatMoney(spent.amount, spent.currency)} was made on ${formatDateTime(spent.createdAt)}. Buying it again would charge nothing: it is the same purchase.`
                  : `It belongs to a purchase of ${formatPoints(spent.points)} Points for ${formatMoney(spent.amount, spent.currency)}, made on ${formatDateTime(spent.createdAt)}.`}
              </p>
              <p className="mt-2 flex flex-wrap gap-x-4 gap-y-1">
                <Link href={`/dashboard/history/${spent.id}`} className="font-semibold underline">
                  See that purchase
                </Link>
                {isAdmin && (
                  <Link href="/dashboard/buy" className="font-semibold underline">
                    Start a new purchase
                  </Link>
                )}
              </p>
            </Alert>
          )}
          {!spent && (
            <Card
              title="Confirm your purchase"
              description="Check the details: your card is charged when you press Buy."
            >
              <div className="grid gap-6 md:grid-cols-[1fr_auto] md:items-start">
                <dl className="grid gap-x-8 gap-y-4 text-sm sm:grid-cols-2" data-testid="purchase-summary">
                  <div>
                    <dt className="text-slate-500">Bundle</dt>
                    <dd className="mt-0.5 text-lg font-semibold tabular-nums">{formatPoints(bundle.points)} Points</dd>
                  </div>
                  <div>
                    <dt className="text-slate-500">Amount charged</dt>
                    <dd className="mt-0.5 text-lg font-semibold tabular-nums" data-testid="confirm-amount">
                      {amount}
                    </dd>
                  </div>
                  <div>
                    <dt className="text-slate-500">Card charged</dt>
                    <dd className="mt-0.5 font-medium" data-testid="confirm-card">
                      {method.label}
                    </dd>
                  </div>
                  <div>
                    <dt className="text-slate-500">Balance after payment</dt>
                    <dd className="mt-0.5 font-medium tabular-nums">
                      {formatPoints(organization.pointsBalance + bundle.points)} Points
                    </dd>
                  </div>
                  <div className="sm:col-span-2">
                    <dt className="text-slate-500">Reference</dt>
                    <dd className="mt-0.5 break-all font-mono text-xs text-slate-700">{reference}</dd>
                    <dd className="mt-1 text-xs text-slate-500">
                      It identifies this purchase: pressing Buy again, or retrying after an error, never charges twice.
                    </dd>
                  </div>
                </dl>
                <div className="flex flex-col gap-3 md:min-w-56">
                  {isAdmin && (
                    <BuyPurchaseForm
                      action={buyPoints}
                      fields={{ points: bundle.points, currency, paymentSourceId: method.id, reference }}
                      submitLabel={`Buy ${formatPoints(bundle.points)} Points for ${amount}`}
                      fullWidth
                    />
                  )}
                  <Link href={`/dashboard/buy?${changeQuery.toString()}`} className={buttonClasses("secondary")}>
                    Change
                  </Link>
                </div>
              </div>
            </Card>
          )}
        </div>
      </>
    );
  }

  const canChoose = isAdmin && methods.length > 0;
  return (
    <>
      {header}
      <BuySteps current={1} />
      <div className="space-y-4">
        {memberNotice}
        {wantsConfirm && isAdmin && (
          <Alert tone="error">Choose a bundle that is available and a card, then review the purchase.</Alert>
        )}
        {methods.length === 0 && (
          <Alert tone="warning" title="No usable payment method">
            Your organisation has no saved card that can pay. Add one in{" "}
            <Link href="/dashboard/payment-details" className="font-semibold underline">
              Payment details
            </Link>
            .
          </Alert>
        )}
        <Card>
          <div className="space-y-6">
            <BuyCurrencySwitch current={currency} hrefFor={hrefFor} />
            <Form action="/dashboard/buy" className="space-y-6">
              <input type="hidden" name="step" value="confirm" />
              <input type="hidden" name="currency" value={currency} />
              <input type="hidden" name="ref" value={reference} />
              <BuyBundlePicker
                bundles={bundles}
                currency={currency}
                selected={options.preselected}
                maxPointsPerTopUp={organization.maxPointsPerTopUp}
                disabled={!isAdmin}
              />
              {methods.length > 0 && <BuyMethodPicker methods={methods} selected={method?.id} disabled={!isAdmin} />}
              {canChoose && (
                <div className="flex flex-wrap items-center justify-end gap-3 border-t border-slate-100 pt-4">
                  <p className="text-xs text-slate-500">Nothing is charged until you confirm.</p>
                  <button type="submit" className={buttonClasses("primary")}>
                    Review purchase
                  </button>
                </div>
              )}
            </Form>
          </div>
        </Card>
      </div>
    </>
  );
}
