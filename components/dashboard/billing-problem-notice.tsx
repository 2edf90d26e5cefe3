import { Alert } from "@/components/ui/alert";
import type { BillingProvider } from "@/lib/billing/provider";
import { type BillingProblemCode, billingProblemNotice } from "@/lib/points/cards/billing-problems";

/** Says, on every page that needs the billing provider, that it refuses this organisation and who can mend it. */
export function BillingProblemNotice({
  code,
  provider,
}: {
  code: BillingProblemCode | null | undefined;
  provider: Pick<BillingProvider, "displayName" | "keyVariable">;
}) {
  if (!code) return null;
  const { title, body } = billingProblemNotice(code, provider);
  return (
    <div data-testid="billing-problem" data-code={code}>
      <Alert tone="error" title={title}>
        {body}
      </Alert>
    </div>
  );
}
