import type Stripe from "stripe";
import { type Answer, type Ctx, invalid, ok, type StripeErrorBody } from "../answers";
import { int, metadataOf, str } from "../form";
import { listPage } from "../lists";
import { stripeId } from "../objects";
import type { Store } from "../store";
import { chargeIntent } from "./charges";

/*
 * Refunds of a PaymentIntent's Charge. A card refund in test mode succeeds at once, as Stripe's
 * do: `refund.created`, then `charge.refunded` with the Charge's amount_refunded updated. Stripe's
 * refusals, with nothing moved: charge_already_refunded (nothing left), amount_too_large (more than
 * is left) and charge_disputed (a dispute that is not won).
 */

const REASONS = ["duplicate", "fraudulent", "requested_by_customer"];

// POST /v1/refunds
export function createRefund(store: Store, { form }: Ctx): Answer<Stripe.Refund | StripeErrorBody> {
  const charge = chargeToRefund(store, str(form, "payment_intent"), str(form, "charge"));
  const reason = str(form, "reason");
  if (reason !== undefined && !REASONS.includes(reason)) {
    throw invalid(`Invalid reason: must be one of ${REASONS.join(", ")}`, { param: "reason" });
  }
  const given = form.amount;
  const amount = int(form, "amount");
  if (given !== undefined && (amount === undefined || amount <= 0)) {
    throw invalid("Invalid positive integer", { code: "parameter_invalid_integer", param: "amount" });
  }
  const dispute = [...store.disputes.values()].find((candidate) => candidate.charge === charge.id);
  if (dispute && dispute.status !== "won" && dispute.status !== "warning_closed") {
    throw invalid(`Charge ${charge.id} has been charged back; cannot issue a refund.`, {
      code: "charge_disputed",
      charge: charge.id,
    });
  }
  const left = charge.amount - charge.amount_refunded;
  if (left <= 0) {
    throw invalid(`Charge ${charge.id} has already been refunded.`, {
      code: "charge_already_refunded",
      charge: charge.id,
    });
  }
  if (amount !== undefined && amount > left) {
    throw invalid(
      `Refund amount (${money(amount, charge.currency)}) is greater than unrefunded amount on charge (${money(left, charge.currency)})`,
      { code: "amount_too_large", param: "amount", charge: charge.id },
    );
  }
  const refund = refundObject({
    id: stripeId("re"),
    created: store.clock.seconds(),
    amount: amount ?? left,
    charge,
    metadata: metadataOf(form),
    reason: (reason as Stripe.Refund.Reason | undefined) ?? null,
  });
  store.refunds.set(refund.id, refund);
  charge.amount_refunded += refund.amount;
  charge.refunded = charge.amount_refunded >= charge.amount;
  store.events.emit("refund.created", refund);
  store.events.emit("charge.refunded", charge);
  return ok(refund);
}

// GET /v1/refunds (payment_intent or charge narrows it), newest first
export function listRefunds(store: Store, ctx: Ctx): Answer<Stripe.ApiList<Stripe.Refund>> {
  const intent = str(ctx.query, "payment_intent");
  const charge = str(ctx.query, "charge");
  const refunds = [...store.refunds.values()]
    .filter((refund) => (!intent || refund.payment_intent === intent) && (!charge || refund.charge === charge))
    .reverse();
  return ok(listPage(refunds, ctx, "/v1/refunds"));
}

// GET /v1/refunds/:id
export function retrieveRefund(store: Store, { params: [id = ""] }: Ctx): Answer<Stripe.Refund> {
  return ok(store.refund(id));
}

/** The Charge a refund request names, directly or through its PaymentIntent's latest_charge. */
function chargeToRefund(store: Store, intentId: string | undefined, chargeId: string | undefined): Stripe.Charge {
  if (intentId && chargeId) throw invalid("You can only pass one of charge or payment_intent.", { param: "charge" });
  if (chargeId) return store.charge(chargeId, "charge");
  if (!intentId)
    throw invalid("One of the following params should be provided for this request: payment_intent or charge.");
  const intent = store.intent(intentId, "payment_intent");
  const latest = typeof intent.latest_charge === "string" ? intent.latest_charge : intent.latest_charge?.id;
  if (intent.status !== "succeeded" || !latest) {
    throw invalid(`This PaymentIntent (${intent.id}) does not have a successful charge to refund.`, {
      code: "payment_intent_unexpected_state",
      param: "payment_intent",
    });
  }
  // An intent paid before this server kept Charges names one it never stored: made now, as it was.
  return store.charges.get(latest) ?? chargeIntent(store, intent, latest);
}

function money(amount: number, currency: string): string {
  return `${currency === "jpy" ? "¥" : "$"}${(amount / 100).toFixed(2)}`;
}

export function refundObject(input: {
  id: string;
  created: number;
  amount: number;
  charge: Stripe.Charge;
  metadata: Record<string, string>;
  reason: Stripe.Refund.Reason | null;
}): Stripe.Refund {
  const { charge } = input;
  return {
    id: input.id,
    object: "refund",
    amount: input.amount,
    balance_transaction: stripeId("txn"),
    charge: charge.id,
    created: input.created,
    currency: charge.currency,
    customer: charge.customer,
    customer_account: null,
    metadata: input.metadata,
    payment_intent: charge.payment_intent,
    payment_method: charge.payment_method,
    reason: input.reason,
    receipt_number: null,
    source_transfer_reversal: null,
    status: "succeeded",
    transfer_reversal: null,
  };
}
