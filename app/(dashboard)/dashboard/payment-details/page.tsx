import type { Metadata } from "next";
import { headers } from "next/headers";
import Link from "next/link";
import { AddCardCheckoutForm } from "@/components/dashboard/account/add-card-checkout-form";
import { AddTestCardForm } from "@/components/dashboard/account/add-test-card-form";
import { PaymentMethodCard } from "@/components/dashboard/account/payment-method-card";
import { ReadOnlyNotice } from "@/components/dashboard/account/read-only-notice";
import { RemoveCardForm } from "@/components/dashboard/account/remove-card-form";
import { BillingProblemNotice } from "@/components/dashboard/billing-problem-notice";
import { Alert } from "@/components/ui/alert";
import { buttonClasses } from "@/components/ui/button";
import { Card, PageHeader } from "@/components/ui/card";
import { pageContext } from "@/lib/dashboard/context";
import { deploymentUrl } from "@/lib/dashboard/deployment-url";
import { getPaymentDetails } from "@/lib/points/cards/payment-details";
import { TEST_CARD_CHOICES, testCardBehaviour } from "@/lib/points/cards/test-cards";
import { addCardWithCheckoutAction, addTestCardAction, removeCardAction } from "./actions";
import { curlExample } from "./curl-example";

export const metadata: Metadata = { title: "Payment details · Points" };

export default async function PaymentDetailsPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const { user, runtime } = await pageContext();
  const { added, removed } = await searchParams;
  const details = await getPaymentDetails(runtime, user.organizationId);
  const requestHeaders = await headers();
  const baseUrl = deploymentUrl((name) => requestHeaders.get(name));
  // Spec 2.3: the IDs the API uses are shown once API Point purchases are enabled.
  const showIds = details.apiPurchasesEnabled;
  const canEdit = user.role === "admin";

  return (
    <>
      <PageHeader
        title="Payment details"
        description="Your organisation's saved payment methods, and the IDs to send as payment_source_id in API purchases."
      />
      <div className="space-y-6">
        {added === "1" && <Alert tone="success">Your card was saved and can be used at once.</Alert>}
        {removed === "1" && (
          <Alert tone="success">
            The card was removed: it is no longer offered or charged. Past purchases keep it.
          </Alert>
        )}
        {removed === "default" && (
          <Alert tone="success">
            The card was removed. It was the default, so the organisation has none now: choose a new default in{" "}
            <Link href="/dashboard/settings" className="font-medium underline">
              Settings
            </Link>
            .
          </Alert>
        )}
        {!showIds && (
          <Alert tone="warning" title="API Point purchases are disabled">
            <p>
              Payment method IDs for API purchases are shown here once an admin enables API Point purchases and saves.
            </p>
            <Link href="/dashboard/settings" className={buttonClasses("secondary", "mt-3")}>
              Go to Settings
            </Link>
          </Alert>
        )}

        {details.status === "refused" ? (
          <BillingProblemNotice code={details.problem} provider={runtime.provider} />
        ) : details.status === "unavailable" ? (
          <Alert tone="error" title="Payment methods are unavailable right now">
            {details.message}
          </Alert>
        ) : details.methods.length === 0 ? (
          <Card>
            <p className="text-sm text-slate-700">
              No usable payment method is saved yet. {canEdit ? "Add one below." : "An admin can add one."}
            </p>
          </Card>
        ) : (
          <div className="space-y-4">
            {showIds && (
              <p className="text-sm text-slate-600">
                The API charges the <strong className="font-semibold text-slate-900">default</strong> when a request
                names no <code className="font-mono text-xs">payment_source_id</code>. Change it in{" "}
                <Link
                  href="/dashboard/settings"
                  className="font-medium text-indigo-700 underline-offset-2 hover:underline"
                >
                  Settings
                </Link>
                .
              </p>
            )}
            {details.methods.map((method) => (
              <PaymentMethodCard
                key={method.id}
                {...method}
                showId={showIds}
                behaviour={testCardBehaviour(method.kind)}
                curl={
                  showIds ? curlExample({ baseUrl, paymentSourceId: method.id, currency: details.currency }) : undefined
                }
                remove={
                  canEdit ? (
                    <RemoveCardForm paymentMethodId={method.id} label={method.label} action={removeCardAction} />
                  ) : undefined
                }
              />
            ))}
          </div>
        )}

        {details.status === "ok" && details.unusable.length > 0 && (
          <Card
            title="Not usable for purchases"
            description="Expired cards stay saved until removed, but are never listed by the API or charged."
          >
            <ul className="divide-y divide-slate-100 text-sm">
              {details.unusable.map((method) => (
                <li key={method.id} className="flex flex-wrap items-center justify-between gap-3 py-2">
                  <span className="text-slate-700">
                    {method.label} <span className="text-xs font-medium text-rose-700">Expired</span>
                  </span>
                  {canEdit && (
                    <RemoveCardForm paymentMethodId={method.id} label={method.label} action={removeCardAction} />
                  )}
                </li>
              ))}
            </ul>
          </Card>
        )}

        {details.status !== "refused" && (
          <Card
            title="Add a payment method"
            description={
              details.capabilities.testCards
                ? "This deployment uses the built-in simulated billing provider: choose a test card. Each behaves like Stripe's card of the same name."
                : "Cards are added through a secure Stripe Checkout page."
            }
          >
            {!canEdit && (
              <div className="mb-4">
                <ReadOnlyNotice what="the payment methods" />
              </div>
            )}
            {details.capabilities.testCards ? (
              <AddTestCardForm
                choices={TEST_CARD_CHOICES}
                saved={details.status === "ok" ? details.savedKinds : []}
                canEdit={canEdit}
                action={addTestCardAction}
              />
            ) : (
              <AddCardCheckoutForm canEdit={canEdit} action={addCardWithCheckoutAction} />
            )}
          </Card>
        )}
      </div>
    </>
  );
}
