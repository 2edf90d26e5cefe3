import type Stripe from "stripe";
import type { ProviderDispute, ProviderRefund, RefundRefusal, RefundRequest } from "@/lib/billing/provider";
import { stripeErrorType } from "./client";
import { idOf } from "./events";
import { rethrowRefusal } from "./refusals";

/*
 * Refunds and disputes through Stripe's own objects. Each call answers what Stripe holds now; the
 * domain (lib/points/after-payment/refunds.ts, disputes.ts) decides what it means for Points.
 */

/**
 * Creates (or re-sends, under the request's key) the refund. Stripe's 400 refusals mean nothing
 * moved and retrying will not help (charge_already_refunded, amount_too_large, charge_disputed…):
 * answered as a RefundRefusal. A refused key is ProviderRefusedError; timeouts, dropped connections,
 * 409s, 429s and 5xx leave the outcome unknown and are thrown.
 */
export async function createStripeRefund(
  stripe: Stripe,
  request: RefundRequest,
): Promise<ProviderRefund | RefundRefusal> {
  try {
    const refund = await stripe.refunds.create(
      { payment_intent: request.paymentId, amount: request.amount, metadata: request.metadata },
      { idempotencyKey: request.idempotencyKey },
    );
    return toProviderRefund(refund, request.paymentId);
  } catch (error) {
    const refusal = refundRefusal(error);
    if (refusal) return refusal;
    return rethrowRefusal()(error);
  }
}

/** A 400 invalid_request_error: Stripe executed nothing and will answer the same again. */
function refundRefusal(error: unknown): RefundRefusal | null {
  if (stripeErrorType(error) !== "StripeInvalidRequestError") return null;
  const fields = error as { statusCode?: number; code?: string; message?: string };
  if (fields.statusCode !== 400) return null;
  return {
    refused: true,
    code: fields.code ?? "invalid_request",
    message: fields.message ?? "Stripe refused the refund.",
  };
}

/** Every refund of the PaymentIntent, oldest first (Stripe lists newest first). */
export async function listStripeRefunds(stripe: Stripe, paymentId: string): Promise<ProviderRefund[]> {
  const refunds: ProviderRefund[] = [];
  for await (const refund of stripe.refunds.list({ payment_intent: paymentId, limit: 100 })) {
    refunds.push(toProviderRefund(refund, paymentId));
  }
  // Reversed first, so refunds made in the same second keep their order through the stable sort.
  return refunds.reverse().sort((a, b) => a.created.getTime() - b.created.getTime());
}

/** `requires_action` (the cardholder must give details: not for cards) is not done yet: pending. */
export function toProviderRefund(refund: Stripe.Refund, paymentId: string): ProviderRefund {
  return {
    refundId: refund.id,
    paymentId: idOf(refund.payment_intent) ?? paymentId,
    amount: refund.amount,
    currency: refund.currency.toUpperCase(),
    status: refundStatus(refund.status),
    requestId: refund.metadata?.refund_id || null,
    created: new Date(refund.created * 1000),
  };
}

function refundStatus(status: string | null): ProviderRefund["status"] {
  switch (status) {
    case "succeeded":
    case "failed":
    case "canceled":
      return status;
    default:
      return "pending";
  }
}

/** The dispute as Stripe holds it now, or null when Stripe has none by that id. */
export async function retrieveStripeDispute(stripe: Stripe, disputeId: string): Promise<ProviderDispute | null> {
  let dispute: Stripe.Dispute;
  try {
    dispute = await stripe.disputes.retrieve(disputeId);
  } catch (error) {
    if (isResourceMissing(error)) return null;
    return rethrowRefusal()(error);
  }
  const paymentId = idOf(dispute.payment_intent) ?? (await paymentOfCharge(stripe, dispute.charge));
  if (!paymentId) throw new Error(`Stripe's dispute ${dispute.id} is on a charge with no PaymentIntent.`);
  return {
    disputeId: dispute.id,
    paymentId,
    amount: dispute.amount,
    currency: dispute.currency.toUpperCase(),
    status: disputeStatus(dispute.status),
    fundsWithdrawn: dispute.balance_transactions.some((transaction) => transaction.amount < 0),
    fundsReinstated: dispute.balance_transactions.some((transaction) => transaction.amount > 0),
    created: new Date(dispute.created * 1000),
  };
}

/**
 * Decided only when Stripe closed it: `won`; `lost`; an inquiry closed with no chargeback
 * (`warning_closed`) and one prevented before it became a chargeback (`prevented`) cost nothing, so
 * count as won. Every other status (needs_response, under_review, warnings, appeals) is open.
 */
export function disputeStatus(status: Stripe.Dispute.Status): ProviderDispute["status"] {
  if (status === "lost") return "lost";
  if (status === "won" || status === "warning_closed" || status === "prevented") return "won";
  return "open";
}

async function paymentOfCharge(stripe: Stripe, charge: string | Stripe.Charge): Promise<string | null> {
  const expanded = typeof charge === "string" ? await stripe.charges.retrieve(charge) : charge;
  return idOf(expanded.payment_intent);
}

function isResourceMissing(error: unknown): boolean {
  const fields = error as { statusCode?: number; code?: string };
  return (
    stripeErrorType(error) === "StripeInvalidRequestError" &&
    fields.statusCode === 404 &&
    fields.code === "resource_missing"
  );
}

/** Evidence Stripe's test mode decides a dispute by: https://docs.stripe.com/testing#disputes. */
export const DISPUTE_TEST_EVIDENCE = { won: "winning_evidence", lost: "losing_evidence" } as const;

/**
 * Whether test-mode-only actions (submitting Stripe's magic evidence, refunding as the dashboard
 * would) may run: only with a test key, or against a test server with any key that is not live. A
 * client whose key cannot be read counts as live unless it talks to a test server.
 */
export function assertStripeTestMode(stripe: Stripe, testServer: boolean, what: string): void {
  const key = stripeApiKey(stripe);
  const testKey = key !== null && /^(?:sk|rk)_test_/.test(key);
  const liveKey = key !== null && /^(?:sk|rk)_live_/.test(key);
  if (testKey || (testServer && !liveKey)) return;
  throw new Error(
    `Refusing to ${what}: it is a Stripe test-mode action, and this provider ${liveKey ? "holds a live key" : "cannot tell that its key is a test key"}.`,
  );
}

/**
 * The secret key the SDK client sends. stripe-node keeps it on its API-key authenticator
 * (`_authenticator._apiKey`); null when it is not there (a custom authenticator, another SDK).
 */
function stripeApiKey(stripe: Stripe): string | null {
  const authenticator = (stripe as unknown as { _authenticator?: { _apiKey?: unknown } })._authenticator;
  const key = authenticator?._apiKey;
  return typeof key === "string" ? key : null;
}
