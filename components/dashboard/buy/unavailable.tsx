import Link from "next/link";
import { BillingProblemNotice } from "@/components/dashboard/billing-problem-notice";
import { Alert } from "@/components/ui/alert";
import { PageHeader } from "@/components/ui/card";
import type { BillingProvider } from "@/lib/billing/provider";
import type { Currency } from "@/lib/catalog";
import type { BillingProblemCode } from "@/lib/points/cards/billing-problems";

/** Buying cannot start: the billing provider refuses this organisation (`problem`), or cannot answer now. */
export interface BuyUnavailableState {
  /** The currency the page was priced in, to try again in. */
  currency: Currency;
  /** Set when the provider refuses this organisation: the notice says who can mend it. */
  problem?: BillingProblemCode;
  message: string;
}

export function BuyUnavailable({
  state,
  provider,
}: {
  state: BuyUnavailableState;
  provider: Pick<BillingProvider, "displayName" | "keyVariable">;
}) {
  return (
    <>
      <PageHeader title="Buy Points" />
      {state.problem ? (
        <BillingProblemNotice code={state.problem} provider={provider} />
      ) : (
        <Alert tone="warning" title="Buying is unavailable for a moment">
          <p>{state.message}</p>
          <p className="mt-2">
            <Link href={`/dashboard/buy?currency=${state.currency}`} className="font-semibold underline">
              Try again
            </Link>
          </p>
        </Alert>
      )}
    </>
  );
}
