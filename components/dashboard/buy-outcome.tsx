import type { ReactNode } from "react";
import type { TopUp } from "@/lib/db/schema";
import { formatMoney, formatPoints } from "@/lib/format";

const tones = {
  paid: { box: "border-emerald-200 bg-emerald-50", icon: "bg-emerald-600", text: "text-emerald-900", mark: "✓" },
  failed: { box: "border-rose-200 bg-rose-50", icon: "bg-rose-600", text: "text-rose-900", mark: "✕" },
  awaiting_payment: { box: "border-amber-200 bg-amber-50", icon: "bg-amber-500", text: "text-amber-950", mark: "!" },
  unresolved: { box: "border-sky-200 bg-sky-50", icon: "bg-sky-600", text: "text-sky-950", mark: "…" },
} as const;

/**
 * A purchase's outcome told plainly: paid (with the new balance), declined (why), awaiting the
 * cardholder (how to finish it) or not known yet (it will resolve, and where to look).
 * `children` holds the next steps the page offers for this state.
 */
export function BuyOutcome({
  topUp,
  pointsBalance,
  replayed,
  children,
}: {
  topUp: TopUp;
  pointsBalance: number;
  replayed: boolean;
  children?: ReactNode;
}) {
  const kind =
    topUp.status === "paid" || topUp.status === "failed" || topUp.status === "awaiting_payment"
      ? topUp.status
      : "unresolved";
  const tone = tones[kind];
  const amount = formatMoney(topUp.amount, topUp.currency);
  const points = formatPoints(topUp.points);
  return (
    <section
      className={`rounded-xl border p-5 sm:p-6 ${tone.box}`}
      data-testid="purchase-outcome"
      data-status={topUp.status}
      aria-labelledby="outcome-title"
    >
      <div className="flex items-start gap-4">
        <span
          aria-hidden="true"
          className={`inline-flex h-10 w-10 shrink-0 items-center justify-center rounded-full text-lg font-bold text-white ${tone.icon}`}
        >
          {tone.mark}
        </span>
        <div className={`min-w-0 flex-1 space-y-2 text-sm ${tone.text}`}>
          {kind === "paid" && replayed && (
            <>
              <h2 id="outcome-title" className="text-lg font-semibold">
                Already bought
              </h2>
              {/* One plain statement: a repeat shows the earlier purchase, not a second "added". */}
              <p>
                This purchase of {points} Points for {amount} was already made, so nothing was charged again. Your
                balance is{" "}
                <strong className="tabular-nums" data-testid="outcome-balance">
                  {formatPoints(pointsBalance)} Points
                </strong>
                .
              </p>
            </>
          )}
          {kind === "paid" && !replayed && (
            <>
              <h2 id="outcome-title" className="text-lg font-semibold">
                Payment successful
              </h2>
              <p>
                {points} Points were added for {amount}.{" "}
                {topUp.refundedPoints > 0 || topUp.disputeStatus
                  ? "Since then it was refunded or disputed (see After payment, below). Your balance is"
                  : "Your balance is now"}{" "}
                <strong className="tabular-nums" data-testid="outcome-balance">
                  {formatPoints(pointsBalance)} Points
                </strong>
                .
              </p>
            </>
          )}
          {kind === "failed" && (
            <>
              <h2 id="outcome-title" className="text-lg font-semibold">
                Payment declined
              </h2>
              <p data-testid="outcome-reason">{topUp.failureMessage ?? "The card issuer declined the payment."}</p>
              <p>Nothing was charged and no Points were added. Try again with another card.</p>
            </>
          )}
          {kind === "awaiting_payment" && (
            <>
              <h2 id="outcome-title" className="text-lg font-semibold">
                Your bank needs you to confirm this payment
              </h2>
              <p>
                {topUp.failureMessage ??
                  "The card issuer asks the cardholder to authenticate this payment before it completes."}{" "}
                Nothing is taken and no Points are added until it is authenticated.
              </p>
            </>
          )}
          {kind === "unresolved" && (
            <>
              <h2 id="outcome-title" className="text-lg font-semibold">
                Payment being confirmed
              </h2>
              <p>
                The card issuer has not given a final answer yet. This purchase will resolve: the {points} Points are
                added once the payment is confirmed, and it is never charged twice. Check History for the outcome.
              </p>
            </>
          )}
          {replayed && kind !== "paid" && (
            <p className="text-xs opacity-80">
              This purchase had already been sent, so this request was answered with it and nothing was charged again.
            </p>
          )}
          {children && <div className="pt-2">{children}</div>}
        </div>
      </div>
    </section>
  );
}
