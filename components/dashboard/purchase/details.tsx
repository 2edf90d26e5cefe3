import type { ReactNode } from "react";
import { SourceBadge } from "@/components/dashboard/history-table";
import { StatusBadge } from "@/components/ui/badge";
import { Card } from "@/components/ui/card";
import type { TopUp } from "@/lib/db/schema";
import { expiryText, formatDateTime, formatMoney, formatPoints } from "@/lib/format";

/** Everything stored about the purchase, for admins and members alike. */
export function PurchaseDetails({
  topUp,
  cardLabel,
  attention,
}: {
  topUp: TopUp;
  cardLabel: string;
  attention: boolean;
}) {
  return (
    <Card title="Details">
      <dl className="grid gap-x-8 gap-y-4 text-sm sm:grid-cols-2 lg:grid-cols-3">
        <Detail label="Status">
          <StatusBadge status={topUp.status} attention={attention} />
        </Detail>
        <Detail label="Points">{formatPoints(topUp.points)}</Detail>
        <Detail label="Amount">{formatMoney(topUp.amount, topUp.currency)}</Detail>
        <Detail label="Payment method">
          {cardLabel}
          <span className="block break-all font-mono text-xs text-slate-500">{topUp.paymentSourceId}</span>
        </Detail>
        <Detail label="Source">
          <SourceBadge source={topUp.source} />
        </Detail>
        <Detail label="Reference">
          <span className="break-all font-mono text-xs">{topUp.reference}</span>
        </Detail>
        <Detail label="Created">{formatDateTime(topUp.createdAt)}</Detail>
        <Detail label="Paid">{topUp.paidAt ? formatDateTime(topUp.paidAt) : "—"}</Detail>
        <Detail label="Expiry">
          <span data-testid="purchase-expiry">{expiryText(topUp.pointsExpireAt)}</span>
        </Detail>
        <Detail label="Purchase ID">
          <span className="break-all font-mono text-xs">{topUp.id}</span>
        </Detail>
      </dl>
    </Card>
  );
}

function Detail({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div>
      <dt className="text-slate-500">{label}</dt>
      <dd className="mt-0.5 font-medium text-slate-900">{children}</dd>
    </div>
  );
}
