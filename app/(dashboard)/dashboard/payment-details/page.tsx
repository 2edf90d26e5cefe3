import type { Metadata } from "next";
import { PaymentDetailsNotices } from "@/components/dashboard/payment-details/notices";
import {
  ReadyPaymentDetails,
  RefusedPaymentDetails,
  UnavailablePaymentDetails,
} from "@/components/dashboard/payment-details/states";
import { PageHeader } from "@/components/ui/card";
import { pageContext } from "@/lib/dashboard/context";
import { addCardWithCheckoutAction, addTestCardAction, removeCardAction } from "./actions";
import { loadPaymentDetailsPage } from "./load";

export const metadata: Metadata = { title: "Payment details · Points" };

const actions = {
  remove: removeCardAction,
  addTestCard: addTestCardAction,
  addWithCheckout: addCardWithCheckoutAction,
};

export default async function PaymentDetailsPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const context = await pageContext();
  const state = await loadPaymentDetailsPage(context, await searchParams);

  return (
    <>
      <PageHeader
        title="Payment details"
        description="Your organisation's saved payment methods, and the IDs to send as payment_source_id in API purchases."
      />
      <div className="space-y-6">
        <PaymentDetailsNotices {...state.notices} />
        {state.kind === "refused" ? (
          <RefusedPaymentDetails state={state} />
        ) : state.kind === "unavailable" ? (
          <UnavailablePaymentDetails state={state} actions={actions} />
        ) : (
          <ReadyPaymentDetails state={state} actions={actions} />
        )}
      </div>
    </>
  );
}
