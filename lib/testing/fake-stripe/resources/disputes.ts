import type Stripe from "stripe";
import { type Answer, type Ctx, invalid, ok } from "../answers";
import { bool, obj, str } from "../form";
import { listPage } from "../lists";
import { stripeId } from "../objects";
import type { Store } from "../store";

/*
 * Disputes, as Stripe's test mode makes and decides them. A charge on pm_card_createDispute
 * succeeds, then its dispute opens (needs_response, the amount withdrawn): `charge.dispute.created`,
 * `charge.dispute.funds_withdrawn`. Submitting evidence decides it: uncategorized_text
 * `winning_evidence` wins (the amount reinstated), `losing_evidence` loses, anything else leaves it
 * under review. A closed dispute cannot be updated.
 */

const CLOSED: Stripe.Dispute.Status[] = ["won", "lost", "warning_closed", "prevented"];

/** Opens the dispute a disputing test card's charge gets, once the payment succeeded. */
export function openDispute(store: Store, charge: Stripe.Charge): Stripe.Dispute {
  const created = store.clock.seconds();
  const id = stripeId("du");
  const dispute = disputeObject({ id, created, charge });
  dispute.balance_transactions.push(
    balanceTransaction(id, -charge.amount, charge.currency, created, "Chargeback withdrawal"),
  );
  store.disputes.set(dispute.id, dispute);
  charge.disputed = true;
  store.events.emit("charge.dispute.created", dispute);
  store.events.emit("charge.dispute.funds_withdrawn", dispute);
  return dispute;
}

// GET /v1/disputes (payment_intent or charge narrows it), newest first
export function listDisputes(store: Store, ctx: Ctx): Answer<Stripe.ApiList<Stripe.Dispute>> {
  const intent = str(ctx.query, "payment_intent");
  const charge = str(ctx.query, "charge");
  const disputes = [...store.disputes.values()]
    .filter((dispute) => (!intent || dispute.payment_intent === intent) && (!charge || dispute.charge === charge))
    .reverse();
  return ok(listPage(disputes, ctx, "/v1/disputes"));
}

// GET /v1/disputes/:id
export function retrieveDispute(store: Store, { params: [id = ""] }: Ctx): Answer<Stripe.Dispute> {
  return ok(store.dispute(id));
}

// POST /v1/disputes/:id (evidence, submit, metadata)
export function updateDispute(store: Store, { params: [id = ""], form }: Ctx): Answer<Stripe.Dispute> {
  const dispute = store.dispute(id);
  if (CLOSED.includes(dispute.status)) {
    throw invalid(`This dispute is already closed (status ${dispute.status}); it can no longer be updated.`, {
      param: "evidence",
    });
  }
  const text = str(obj(form, "evidence") ?? {}, "uncategorized_text");
  if (text !== undefined) {
    dispute.evidence.uncategorized_text = text;
    dispute.evidence_details.has_evidence = true;
  }
  const meta = obj(form, "metadata");
  if (meta) {
    for (const [key, value] of Object.entries(meta)) {
      if (typeof value !== "string") continue;
      if (value === "") delete dispute.metadata[key];
      else dispute.metadata[key] = value;
    }
  }
  if (!bool(form, "submit")) {
    store.events.emit("charge.dispute.updated", dispute);
    return ok(dispute);
  }
  dispute.evidence_details.submission_count += 1;
  dispute.evidence_details.submission_method = "manual";
  const outcome = dispute.evidence.uncategorized_text;
  if (outcome === "winning_evidence") {
    dispute.status = "won";
    dispute.balance_transactions.push(
      balanceTransaction(dispute.id, dispute.amount, dispute.currency, store.clock.seconds(), "Chargeback reversal"),
    );
    const charge = store.charges.get(typeof dispute.charge === "string" ? dispute.charge : dispute.charge.id);
    if (charge) charge.disputed = false;
    store.events.emit("charge.dispute.updated", dispute);
    store.events.emit("charge.dispute.closed", dispute);
    store.events.emit("charge.dispute.funds_reinstated", dispute);
  } else if (outcome === "losing_evidence") {
    dispute.status = "lost";
    store.events.emit("charge.dispute.updated", dispute);
    store.events.emit("charge.dispute.closed", dispute);
  } else {
    dispute.status = "under_review";
    store.events.emit("charge.dispute.updated", dispute);
  }
  return ok(dispute);
}

function balanceTransaction(
  disputeId: string,
  amount: number,
  currency: string,
  created: number,
  description: string,
): Stripe.BalanceTransaction {
  return {
    id: stripeId("txn"),
    object: "balance_transaction",
    amount,
    available_on: created,
    balance_type: "payments",
    created,
    currency,
    description,
    exchange_rate: null,
    fee: 0,
    fee_details: [],
    net: amount,
    reporting_category: amount < 0 ? "dispute" : "dispute_reversal",
    source: disputeId,
    status: "available",
    type: "adjustment",
  };
}

function disputeObject(input: { id: string; created: number; charge: Stripe.Charge }): Stripe.Dispute {
  const { charge } = input;
  return {
    id: input.id,
    object: "dispute",
    amount: charge.amount,
    balance_transactions: [],
    charge: charge.id,
    created: input.created,
    currency: charge.currency,
    enhanced_eligibility_types: [],
    evidence: {
      access_activity_log: null,
      billing_address: null,
      cancellation_policy: null,
      cancellation_policy_disclosure: null,
      cancellation_rebuttal: null,
      customer_communication: null,
      customer_email_address: null,
      customer_name: null,
      customer_purchase_ip: null,
      customer_signature: null,
      duplicate_charge_documentation: null,
      duplicate_charge_explanation: null,
      duplicate_charge_id: null,
      enhanced_evidence: {},
      product_description: null,
      receipt: null,
      refund_policy: null,
      refund_policy_disclosure: null,
      refund_refusal_explanation: null,
      service_date: null,
      service_documentation: null,
      shipping_address: null,
      shipping_carrier: null,
      shipping_date: null,
      shipping_documentation: null,
      shipping_tracking_number: null,
      uncategorized_file: null,
      uncategorized_text: null,
    },
    evidence_details: {
      due_by: input.created + 7 * 24 * 60 * 60,
      enhanced_eligibility: {},
      has_evidence: false,
      past_due: false,
      submission_count: 0,
      submission_method: "not_submitted",
    },
    intended_submission_method: null,
    is_charge_refundable: false,
    livemode: false,
    metadata: {},
    payment_intent: charge.payment_intent,
    reason: "fraudulent",
    status: "needs_response",
  };
}
