import { Alert } from "@/components/ui/alert";
import type { BillingProvider } from "@/lib/billing/provider";
import { type BillingProblemCode, billingProblemNotice } from "@/lib/points/billing-problems";

/** Says, on every page that needs the billing provider, that it refuses this organisation and who can mend it. */
export function BillingProblemNotice({
  code,
  provider,
  organizationId,
}: {
  code: BillingProblemCode | null | undefined;
  provider: Pick<BillingProvider, "displayName" | "keyVariable">;
  organizationId: string;
}) {
  if (!code) return null;
  const { title, body } = billingProblemNotice(code, provider, organizationId);
  return (
    <div data-testid="billing-problem" data-code={code}>
      <Alert tone="error" title={title}>
        {body}
      </Alert>
    </div>
  );
}
