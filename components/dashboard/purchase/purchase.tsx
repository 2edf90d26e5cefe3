import Link from "next/link";
import { BuyOutcome, type PurchaseArrival } from "@/components/dashboard/buy-outcome";
import { BuySteps } from "@/components/dashboard/buy-steps";
import { buttonClasses } from "@/components/ui/button";
import { PageHeader } from "@/components/ui/card";
import type { TopUp } from "@/lib/db/schema";
import { formatMoney, formatPoints } from "@/lib/format";
import type { AfterPaymentEntry } from "@/lib/points/after-payment/view";
import { receiptPath } from "@/lib/points/api/json";
import { AfterPayment } from "./after-payment";
import { PurchaseDetails } from "./details";
import {
  type AuthenticationFormAction,
  CheckAgainForm,
  PurchaseAuthentication,
  type PurchaseFormAction,
} from "./next-steps";

/** One purchase as it is now, and what the page knows around it. */
export interface PurchaseState {
  topUp: TopUp;
  /** How the person got here: right after Buy, a re-send, "Check again now", or from History (none). */
  arrival: PurchaseArrival;
  pointsBalance: number;
  afterPayment: AfterPaymentEntry[];
  /** The card as a person reads it, else its ID. */
  cardLabel: string;
  /** The purchase has waited too long for an outcome (needsAttention). */
  attention: boolean;
  isAdmin: boolean;
  organizationName: string;
  /** The provider lets an admin act as the cardholder (test mode); otherwise the bank's page does it. */
  simulatedAuthentication: boolean;
}

/** The buy actions the page offers next, passed in by the page. */
export interface PurchaseActions {
  buyPoints: PurchaseFormAction;
  completeAuthentication: AuthenticationFormAction;
  startProviderAuthentication: AuthenticationFormAction;
}

export function PurchaseView({ state, actions }: { state: PurchaseState; actions: PurchaseActions }) {
  const { topUp, arrival, isAdmin } = state;
  const unresolved = topUp.status === "pending" || topUp.status === "processing";
  const inBuyFlow = arrival === "bought" || arrival === "replayed";
  return (
    <>
      <PurchaseHeader topUp={topUp} />
      {/* Right after Buy, the purchase ends the steps it went through; from History it is a record. */}
      {inBuyFlow && topUp.source === "dashboard" && <BuySteps current={3} last={outcomeStep(topUp.status)} />}
      <div className="space-y-6">
        {/* BuyOutcome counts its children: each next step stays a condition here, false when not offered. */}
        <BuyOutcome topUp={topUp} pointsBalance={state.pointsBalance} arrival={arrival}>
          {topUp.status === "awaiting_payment" && (
            <PurchaseAuthentication
              topUpId={topUp.id}
              isAdmin={isAdmin}
              organizationName={state.organizationName}
              simulated={state.simulatedAuthentication}
              complete={actions.completeAuthentication}
              startWithProvider={actions.startProviderAuthentication}
            />
          )}
          {unresolved && isAdmin && <CheckAgainForm topUp={topUp} action={actions.buyPoints} />}
        </BuyOutcome>

        <PurchaseLinks topUp={topUp} isAdmin={isAdmin} inBuyFlow={inBuyFlow} />

        {state.afterPayment.length > 0 && <AfterPayment entries={state.afterPayment} />}

        <PurchaseDetails topUp={topUp} cardLabel={state.cardLabel} attention={state.attention} />
      </div>
    </>
  );
}

function PurchaseHeader({ topUp }: { topUp: TopUp }) {
  return (
    <PageHeader
      title={`${formatPoints(topUp.points)} Points for ${formatMoney(topUp.amount, topUp.currency)}`}
      description={
        <>
          Reference <span className="font-mono text-xs">{topUp.reference}</span>
        </>
      }
      actions={
        topUp.status === "paid" ? (
          <Link href={receiptPath(topUp.id)} className={buttonClasses("secondary")}>
            Receipt
          </Link>
        ) : undefined
      }
    />
  );
}

function PurchaseLinks({ topUp, isAdmin, inBuyFlow }: { topUp: TopUp; isAdmin: boolean; inBuyFlow: boolean }) {
  const retryQuery = new URLSearchParams({ currency: topUp.currency, points: String(topUp.points) });
  return (
    <div className="flex flex-wrap gap-3">
      {isAdmin && (
        <Link
          href={topUp.status === "failed" ? `/dashboard/buy?${retryQuery.toString()}` : "/dashboard/buy"}
          className={buttonClasses(topUp.status === "paid" || topUp.status === "failed" ? "primary" : "secondary")}
        >
          {topUp.status === "failed" ? "Try again with another card" : "Start a new purchase"}
        </Link>
      )}
      <Link href="/dashboard/history" className={buttonClasses("secondary")}>
        {inBuyFlow ? "View history" : "Back to History"}
      </Link>
    </div>
  );
}

/** The last step's name when it is not "Done": the purchase ended otherwise, or has not ended yet. */
function outcomeStep(status: string): string | undefined {
  if (status === "paid") return undefined;
  if (status === "failed") return "Declined";
  if (status === "awaiting_payment") return "Awaiting the cardholder";
  return "Being confirmed";
}
