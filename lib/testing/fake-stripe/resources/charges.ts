import type Stripe from "stripe";
import { type Answer, type Ctx, ok } from "../answers";
import { stripeId } from "../objects";
import type { Store } from "../store";

/*
 * The Charge behind each successful PaymentIntent (its latest_charge): what refunds and disputes
 * hang on, as at Stripe. Only the fields this product and the SDK read are more than their
 * empty values.
 */

export function chargeObject(input: {
  id: string;
  created: number;
  amount: number;
  currency: string;
  customer: string | null;
  paymentIntent: string;
  paymentMethod: string | null;
  metadata: Record<string, string>;
  description: string | null;
  /** Where Stripe would show the charge's receipt: the test server's own address, never visited by the tests. */
  receiptUrl?: string | null;
}): Stripe.Charge {
  return {
    id: input.id,
    object: "charge",
    amount: input.amount,
    amount_captured: input.amount,
    amount_refunded: 0,
    application: null,
    application_fee: null,
    application_fee_amount: null,
    balance_transaction: null,
    billing_details: { address: null, email: null, name: null, phone: null, tax_id: null },
    calculated_statement_descriptor: null,
    captured: true,
    created: input.created,
    currency: input.currency,
    customer: input.customer,
    description: input.description,
    disputed: false,
    failure_balance_transaction: null,
    failure_code: null,
    failure_message: null,
    fraud_details: null,
    livemode: false,
    metadata: input.metadata,
    on_behalf_of: null,
    outcome: null,
    paid: true,
    payment_intent: input.paymentIntent,
    payment_method: input.paymentMethod,
    payment_method_details: null,
    receipt_email: null,
    receipt_number: null,
    receipt_url: input.receiptUrl ?? null,
    refunded: false,
    review: null,
    shipping: null,
    source: null,
    source_transfer: null,
    statement_descriptor: null,
    statement_descriptor_suffix: null,
    status: "succeeded",
    transfer_data: null,
    transfer_group: null,
  };
}

/**
 * Makes the succeeded intent's Charge and names it the intent's latest_charge; `id` keeps the one an
 * intent paid before Charges were kept (a state file from then) already names.
 */
export function chargeIntent(store: Store, intent: Stripe.PaymentIntent, id = stripeId("ch")): Stripe.Charge {
  const charge = chargeObject({
    id,
    created: store.clock.seconds(),
    amount: intent.amount,
    currency: intent.currency,
    customer: typeof intent.customer === "string" ? intent.customer : (intent.customer?.id ?? null),
    paymentIntent: intent.id,
    paymentMethod:
      typeof intent.payment_method === "string" ? intent.payment_method : (intent.payment_method?.id ?? null),
    metadata: { ...intent.metadata },
    description: intent.description,
    receiptUrl: `${store.baseUrl}/receipts/${id}`,
  });
  store.charges.set(charge.id, charge);
  intent.latest_charge = charge.id;
  return charge;
}

// GET /v1/charges/:id
export function retrieveCharge(store: Store, { params: [id = ""] }: Ctx): Answer<Stripe.Charge> {
  return ok(store.charge(id));
}
