import { rowReader, selectColumns } from "@/lib/db/hot";
import { type SimPayment, simCustomers, simPaymentMethods, simPayments, type simRefunds } from "@/lib/db/schema";
import type { ChargeOutcome, ProviderRefund } from "../provider";
import { isTestCardKind, TEST_CARDS } from "../test-cards";

/** The simulated provider's rows read back, its hand-written statements, and what a card does when charged. */

export const failureMessages: Record<string, string> = {
  card_declined: "Your card was declined.",
  insufficient_funds: "Your card has insufficient funds.",
  expired_card: "Your card has expired.",
  authentication_required:
    "The card issuer requires the cardholder to authenticate this payment before it can complete.",
  authentication_failed: "The cardholder did not complete authentication; the payment was not taken.",
  invalid_payment_method: "The payment method is no longer attached to this customer.",
  canceled: "The payment was cancelled before the cardholder completed it.",
};

export function toRefund(row: typeof simRefunds.$inferSelect): ProviderRefund {
  return {
    refundId: row.id,
    paymentId: row.paymentId,
    amount: row.amount,
    currency: row.currency.toUpperCase(),
    status: row.status as ProviderRefund["status"],
    requestId: row.requestId,
    created: row.createdAt,
  };
}

export const readCustomer = rowReader(simCustomers, "c_");
export const readMethod = rowReader(simPaymentMethods, "m_");
/** A customer with its attached cards, oldest first: what every purchase lists. */
export const LIST_METHODS_SQL = `select ${selectColumns(simCustomers, "c", "c_")}, ${selectColumns(simPaymentMethods, "m", "m_")}
from sim_customers c
left join sim_payment_methods m on m.customer_id = c.id and m.detached_at is null
where c.id = $1
order by m.created_at, m.id`;
export const readPayment = rowReader(simPayments);
/** What charging a card of this kind does; null: no such card attached to the customer. */
function chargeResult(kind: string | null): {
  status: string;
  failureCode: string | null;
  failureMessage: string | null;
} {
  const result =
    kind === null ? "invalid_payment_method" : isTestCardKind(kind) ? TEST_CARDS[kind].charge : "card_declined";
  const status = result === "succeeded" || result === "requires_action" || result === "processing" ? result : "failed";
  const failureCode = status === "failed" ? result : status === "requires_action" ? "authentication_required" : null;
  return { status, failureCode, failureMessage: failureCode ? (failureMessages[failureCode] ?? null) : null };
}

/** chargeResult as SQL over `k.kind`, its answers written into the statement as constants. */
function chargeResultSql(field: "status" | "failureCode" | "failureMessage"): string {
  const literal = (value: string | null) => (value === null ? "null" : `'${value.replaceAll("'", "''")}'`);
  const kinds = Object.keys(TEST_CARDS).map(
    (kind) => `when k.kind = ${literal(kind)} then ${literal(chargeResult(kind)[field])}`,
  );
  return `case when k.kind is null then ${literal(chargeResult(null)[field])} ${kinds.join(" ")} else ${literal(chargeResult("unknown")[field])} end`;
}

/**
 * $1 id, $2 idempotency key, $3 customer, $4 payment method, $5 amount, $6 currency, $7 top-up,
 * $8 now. Returns the payment and the card's kind, or nothing when the key has a payment already.
 */
export const CHARGE_SQL = `with m as (
  select kind from sim_payment_methods where id = $4 and customer_id = $3 and detached_at is null
),
k as (select (select kind from m) as kind)
insert into sim_payments (id, idempotency_key, customer_id, payment_method_id, amount, currency, top_up_id,
  status, failure_code, failure_message, created_at, updated_at)
select $1, $2, $3, $4, $5, $6, $7, ${chargeResultSql("status")}, ${chargeResultSql("failureCode")},
  ${chargeResultSql("failureMessage")}, $8, $8
from k
on conflict (idempotency_key) do nothing
returning *, (select kind from m) as method_kind`;

export function toOutcome(payment: SimPayment): ChargeOutcome {
  switch (payment.status) {
    case "succeeded":
      return { status: "succeeded", paymentId: payment.id };
    case "requires_action":
      return {
        status: "requires_action",
        paymentId: payment.id,
        code: payment.failureCode ?? "authentication_required",
        message: payment.failureMessage ?? failureMessages.authentication_required ?? "",
      };
    case "processing":
      return { status: "processing", paymentId: payment.id };
    default:
      return {
        status: "failed",
        paymentId: payment.id,
        code: payment.failureCode ?? "card_declined",
        message: payment.failureMessage ?? "The payment failed.",
      };
  }
}
