import Form from "next/form";
import Link from "next/link";
import { BuyBundlePicker } from "@/components/dashboard/buy-bundle-picker";
import { BuyCurrencySwitch } from "@/components/dashboard/buy-currency-switch";
import { BuyMethodPicker } from "@/components/dashboard/buy-method-picker";
import { BuySteps } from "@/components/dashboard/buy-steps";
import { Alert } from "@/components/ui/alert";
import { buttonClasses } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import type { Currency } from "@/lib/catalog";
import type { Organization } from "@/lib/db/schema";
import type { BuyOptions } from "@/lib/points/views/buy-options";
import { BuyHeader, BuyMemberNotice } from "./frame";

/** Buy's first step: currency, bundle and card, sent to the confirm step by a plain GET form. */
export interface BuyChooseState {
  currency: Currency;
  /** The purchase's reference, carried to the confirm step. */
  reference: string;
  isAdmin: boolean;
  organization: Pick<Organization, "name" | "maxPointsPerTopUp">;
  options: BuyOptions;
  /** The confirm step was asked for, but without a bundle and card that can be bought with. */
  wantsConfirm: boolean;
}

export function BuyChoose({ state }: { state: BuyChooseState }) {
  const { isAdmin, organization, options, wantsConfirm } = state;
  return (
    <>
      <BuyHeader />
      <BuySteps current={1} />
      <div className="space-y-4">
        <BuyMemberNotice isAdmin={isAdmin} organizationName={organization.name} />
        {wantsConfirm && isAdmin && (
          <Alert tone="error">Choose a bundle that is available and a card, then review the purchase.</Alert>
        )}
        {options.methods.length === 0 && (
          <Alert tone="warning" title="No usable payment method">
            Your organisation has no saved card that can pay. Add one in{" "}
            <Link href="/dashboard/payment-details" className="font-semibold underline">
              Payment details
            </Link>
            .
          </Alert>
        )}
        <Card>
          <BuyChooseForm state={state} />
        </Card>
      </div>
    </>
  );
}

function BuyChooseForm({ state }: { state: BuyChooseState }) {
  const { currency, reference, isAdmin, organization, options } = state;
  const { bundles, methods, bundle, method } = options;
  const canChoose = isAdmin && methods.length > 0;

  const hrefFor = (next: Currency) => {
    const query = new URLSearchParams({ currency: next, ref: reference });
    if (bundle) query.set("points", String(bundle.points));
    if (method) query.set("method", method.id);
    return `/dashboard/buy?${query.toString()}`;
  };

  return (
    <div className="space-y-6">
      <BuyCurrencySwitch current={currency} hrefFor={hrefFor} />
      <Form action="/dashboard/buy" className="space-y-6">
        <input type="hidden" name="step" value="confirm" />
        <input type="hidden" name="currency" value={currency} />
        <input type="hidden" name="ref" value={reference} />
        <BuyBundlePicker
          bundles={bundles}
          currency={currency}
          selected={options.preselected}
          maxPointsPerTopUp={organization.maxPointsPerTopUp}
          disabled={!isAdmin}
        />
        {methods.length > 0 && <BuyMethodPicker methods={methods} selected={method?.id} disabled={!isAdmin} />}
        {canChoose && (
          <div className="flex flex-wrap items-center justify-end gap-3 border-t border-slate-100 pt-4">
            <p className="text-xs text-slate-500">Nothing is charged until you confirm.</p>
            <button type="submit" className={buttonClasses("primary")}>
              Review purchase
            </button>
          </div>
        )}
      </Form>
    </div>
  );
}
