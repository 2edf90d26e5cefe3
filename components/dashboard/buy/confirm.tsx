import Link from "next/link";
import type { ComponentProps } from "react";
import { BuyPurchaseForm } from "@/components/dashboard/buy-purchase-form";
import { BuySteps } from "@/components/dashboard/buy-steps";
import { Alert } from "@/components/ui/alert";
import { buttonClasses } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import type { Currency } from "@/lib/catalog";
import type { Organization, TopUp } from "@/lib/db/schema";
import { expiryText, formatDateTime, formatMoney, formatPoints } from "@/lib/format";
import type { BuyOptions } from "@/lib/points/views/buy-options";
import { BuyHeader, BuyMemberNotice } from "./frame";

/** Buy's second step: the exact amount and the card, and Buy; or what the reference already bought. */
export interface BuyConfirmState {
  currency: Currency;
  /** The purchase's reference, sent with the purchase so every re-send is the same purchase. */
  reference: string;
  isAdmin: boolean;
  organization: Pick<Organization, "name" | "pointsBalance">;
  bundle: NonNullable<BuyOptions["bundle"]>;
  method: NonNullable<BuyOptions["method"]>;
  /** The purchase the reference already made, and whether it was made on these same terms. */
  spent?: { topUp: TopUp; samePurchase: boolean };
  /** When the Points bought now would expire; null: never. Said before paying. */
  pointsExpireAt: Date | null;
}

type PurchaseAction = ComponentProps<typeof BuyPurchaseForm>["action"];

export function BuyConfirm({ state, action }: { state: BuyConfirmState; action: PurchaseAction }) {
  const { isAdmin, organization, spent } = state;
  return (
    <>
      <BuyHeader />
      <BuySteps current={spent?.samePurchase && spent.topUp.status === "paid" ? 3 : 2} />
      <div className="space-y-4">
        <BuyMemberNotice isAdmin={isAdmin} organizationName={organization.name} />
        {spent ? (
          <SpentPurchase topUp={spent.topUp} samePurchase={spent.samePurchase} isAdmin={isAdmin} />
        ) : (
          <ConfirmPurchase state={state} action={action} />
        )}
      </div>
    </>
  );
}

function spentTitle(topUp: TopUp, samePurchase: boolean): string {
  if (!samePurchase) return "This reference was already used for a different purchase";
  if (topUp.status === "paid") return "Already bought";
  if (topUp.status === "failed") return "Already tried: the payment was declined";
  return "Already sent: waiting for the outcome";
}

function SpentPurchase({ topUp, samePurchase, isAdmin }: { topUp: TopUp; samePurchase: boolean; isAdmin: boolean }) {
  return (
    <Alert
      tone={samePurchase && topUp.status === "paid" ? "success" : "warning"}
      title={spentTitle(topUp, samePurchase)}
    >
      <p data-testid="spent-purchase">
        {samePurchase
          ? `This purchase of ${formatPoints(topUp.points)} Points for ${formatMoney(topUp.amount, topUp.currency)} was made on ${formatDateTime(topUp.createdAt)}. Buying it again would charge nothing: it is the same purchase.`
          : `It belongs to a purchase of ${formatPoints(topUp.points)} Points for ${formatMoney(topUp.amount, topUp.currency)}, made on ${formatDateTime(topUp.createdAt)}.`}
      </p>
      <p className="mt-2 flex flex-wrap gap-x-4 gap-y-1">
        <Link href={`/dashboard/history/${topUp.id}`} className="font-semibold underline">
          See that purchase
        </Link>
        {isAdmin && (
          <Link href="/dashboard/buy" className="font-semibold underline">
            Start a new purchase
          </Link>
        )}
      </p>
    </Alert>
  );
}

function ConfirmPurchase({ state, action }: { state: BuyConfirmState; action: PurchaseAction }) {
  const { currency, reference, isAdmin, bundle, method } = state;
  const amount = formatMoney(bundle.amount, currency);
  const changeQuery = new URLSearchParams({
    currency,
    ref: reference,
    points: String(bundle.points),
    method: method.id,
  });
  return (
    <Card title="Confirm your purchase" description="Check the details: your card is charged when you press Buy.">
      <div className="grid gap-6 md:grid-cols-[1fr_auto] md:items-start">
        <PurchaseSummary state={state} amount={amount} />
        <div className="flex flex-col gap-3 md:min-w-56">
          {isAdmin && (
            <BuyPurchaseForm
              action={action}
              fields={{ points: bundle.points, currency, paymentSourceId: method.id, reference }}
              submitLabel={`Buy ${formatPoints(bundle.points)} Points for ${amount}`}
              fullWidth
            />
          )}
          <Link href={`/dashboard/buy?${changeQuery.toString()}`} className={buttonClasses("secondary")}>
            Change
          </Link>
        </div>
      </div>
    </Card>
  );
}

function PurchaseSummary({ state, amount }: { state: BuyConfirmState; amount: string }) {
  const { reference, organization, bundle, method } = state;
  return (
    <dl className="grid gap-x-8 gap-y-4 text-sm sm:grid-cols-2" data-testid="purchase-summary">
      <div>
        <dt className="text-slate-500">Bundle</dt>
        <dd className="mt-0.5 text-lg font-semibold tabular-nums">{formatPoints(bundle.points)} Points</dd>
      </div>
      <div>
        <dt className="text-slate-500">Amount charged</dt>
        <dd className="mt-0.5 text-lg font-semibold tabular-nums" data-testid="confirm-amount">
          {amount}
        </dd>
      </div>
      <div>
        <dt className="text-slate-500">Card charged</dt>
        <dd className="mt-0.5 font-medium" data-testid="confirm-card">
          {method.label}
        </dd>
      </div>
      <div>
        <dt className="text-slate-500">Balance after payment</dt>
        <dd className="mt-0.5 font-medium tabular-nums">
          {formatPoints(organization.pointsBalance + bundle.points)} Points
        </dd>
      </div>
      <div className="sm:col-span-2">
        <dt className="text-slate-500">Expiry</dt>
        <dd className="mt-0.5 font-medium" data-testid="confirm-expiry">
          {expiryText(state.pointsExpireAt)}
        </dd>
      </div>
      <div className="sm:col-span-2">
        <dt className="text-slate-500">Reference</dt>
        <dd className="mt-0.5 break-all font-mono text-xs text-slate-700">{reference}</dd>
        <dd className="mt-1 text-xs text-slate-500">
          It identifies this purchase: pressing Buy again, or retrying after an error, never charges twice.
        </dd>
      </div>
    </dl>
  );
}
