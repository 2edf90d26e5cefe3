import { Children, type ReactNode } from "react";
import type { TopUp } from "@/lib/db/schema";
import { formatDateTime, formatMoney, formatPoints } from "@/lib/format";
import { changedAfterPayment, type HeadlineTone, purchaseHeadline } from "@/lib/points/after-payment/headline";

const tones: Record<HeadlineTone, { box: string; icon: string; text: string; mark: string }> = {
  good: { box: "border-emerald-200 bg-emerald-50", icon: "bg-emerald-600", text: "text-emerald-900", mark: "✓" },
  neutral: { box: "border-slate-200 bg-slate-50", icon: "bg-slate-600", text: "text-slate-900", mark: "✓" },
  bad: { box: "border-rose-200 bg-rose-50", icon: "bg-rose-600", text: "text-rose-900", mark: "✕" },
  warning: { box: "border-amber-200 bg-amber-50", icon: "bg-amber-500", text: "text-amber-950", mark: "!" },
  pending: { box: "border-sky-200 bg-sky-50", icon: "bg-sky-600", text: "text-sky-950", mark: "…" },
};

/**
 * How the person got to the purchase: right after Buy (`bought`), by sending the same purchase form
 * again (`replayed`), by "Check again now" (`checked`), or from History or a link (none).
 */
export type PurchaseArrival = "bought" | "replayed" | "checked" | undefined;

/**
 * A purchase's outcome told plainly, headed by its state as it is now (lib/points/after-payment/headline.ts):
 * paid (with the balance), declined (why), awaiting the cardholder (how to finish it) or not known
 * yet (it will resolve). `children` holds the next steps the page offers for this state.
 */
export function BuyOutcome({
  topUp,
  pointsBalance,
  arrival,
  children,
}: {
  topUp: TopUp;
  pointsBalance: number;
  arrival: PurchaseArrival;
  children?: ReactNode;
}) {
  const headline = purchaseHeadline(topUp);
  const tone = tones[headline.tone];
  const amount = formatMoney(topUp.amount, topUp.currency);
  const points = formatPoints(topUp.points);
  const paid = topUp.status === "paid";
  const changed = paid && changedAfterPayment(topUp);
  // Right after Buy, a payment that went through is a success; anywhere else it is headed by its state.
  const title = paid && !changed && arrival === "bought" ? "Payment successful" : headline.title;
  const balance = (
    <strong className="tabular-nums" data-testid="outcome-balance">
      {formatPoints(pointsBalance)} Points
    </strong>
  );
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
          {paid && arrival === "replayed" ? (
            <>
              <h2 id="outcome-title" className="text-lg font-semibold">
                Already bought
              </h2>
              {/* One plain statement: a repeat shows the earlier purchase, not a second "added". */}
              <p>
                This purchase of {points} Points for {amount} was already made, so nothing was charged again. Your
                balance is {balance}.
              </p>
            </>
          ) : (
            <h2 id="outcome-title" className="text-lg font-semibold">
              {title}
            </h2>
          )}
          {paid && arrival !== "replayed" && (
            <p>
              {arrival === "checked" ? "The payment is confirmed: " : ""}
              {points} Points were added for {amount}
              {topUp.paidAt && arrival !== "bought" ? ` on ${formatDateTime(topUp.paidAt)}` : ""}.{" "}
              {changed ? <>What happened since is under After payment, below. Your balance is {balance}.</> : null}
              {!changed && <>Your balance is now {balance}.</>}
            </p>
          )}
          {topUp.status === "failed" && (
            <>
              <p data-testid="outcome-reason">{topUp.failureMessage ?? "The card issuer declined the payment."}</p>
              <p>Nothing was charged and no Points were added. Try again with another card.</p>
            </>
          )}
          {topUp.status === "awaiting_payment" && (
            <p>
              {topUp.failureMessage ??
                "The card issuer asks the cardholder to authenticate this payment before it completes."}{" "}
              Nothing is taken and no Points are added until it is authenticated.
            </p>
          )}
          {(topUp.status === "pending" || topUp.status === "processing") && (
            <p>
              {arrival === "checked" ? "Checked just now: still no final answer. " : ""}
              The card issuer has not given a final answer yet. This purchase will resolve: the {points} Points are
              added once the payment is confirmed, and it is never charged twice. Check History for the outcome.
            </p>
          )}
          {arrival === "replayed" && !paid && (
            <p className="text-xs opacity-80">
              This purchase had already been sent, so this request was answered with it and nothing was charged again.
            </p>
          )}
          {Children.toArray(children).length > 0 && <div className="pt-2">{children}</div>}
        </div>
      </div>
    </section>
  );
}
