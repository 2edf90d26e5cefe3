import { Alert } from "@/components/ui/alert";
import { PageHeader } from "@/components/ui/card";

/** The Buy page's header on both steps. */
export function BuyHeader() {
  return (
    <PageHeader
      title="Buy Points"
      description="Points are added to your balance as soon as the payment succeeds. Prices come from our billing provider and include everything you pay."
    />
  );
}

/** For members, on both steps: they see the prices and cards, and an admin buys. */
export function BuyMemberNotice({ isAdmin, organizationName }: { isAdmin: boolean; organizationName: string }) {
  if (isAdmin) return null;
  return (
    <Alert tone="info" title="Only admins can buy Points">
      You can see the prices and cards here; ask an admin of {organizationName} to make the purchase.
    </Alert>
  );
}
