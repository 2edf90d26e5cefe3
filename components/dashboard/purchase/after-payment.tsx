import { Card } from "@/components/ui/card";
import { formatDateTime } from "@/lib/format";
import type { AfterPaymentEntry } from "@/lib/points/after-payment/view";

const toneDots: Record<AfterPaymentEntry["tone"], string> = {
  neutral: "bg-slate-400",
  warning: "bg-amber-500",
  good: "bg-emerald-500",
  bad: "bg-rose-500",
};

/** Refunds and a dispute, oldest first, in words; the same for admins and members (nothing to act on here). */
export function AfterPayment({ entries }: { entries: AfterPaymentEntry[] }) {
  return (
    <Card title="After payment" description="Refunds and disputes of this purchase, oldest first. Times are UTC.">
      <ol className="space-y-4" data-testid="after-payment">
        {entries.map((entry) => (
          <li key={`${entry.at.toISOString()} ${entry.title}`} className="flex gap-3 text-sm">
            <span aria-hidden="true" className={`mt-1.5 h-2 w-2 shrink-0 rounded-full ${toneDots[entry.tone]}`} />
            <div>
              <p className="font-medium text-slate-900">{entry.title}</p>
              <p className="text-xs text-slate-500">
                <time dateTime={entry.at.toISOString()}>{formatDateTime(entry.at)}</time>
              </p>
              {entry.details.map((detail) => (
                <p key={detail} className="mt-0.5 text-slate-600">
                  {detail}
                </p>
              ))}
            </div>
          </li>
        ))}
      </ol>
    </Card>
  );
}
