import Link from "next/link";
import { Alert } from "@/components/ui/alert";
import type { TopUp } from "@/lib/db/schema";
import { formatPoints } from "@/lib/format";

/** The Overview's notice that a purchase waits for the cardholder, with the way to finish it. */
export function WaitingPurchaseNotice({ topUp }: { topUp: Pick<TopUp, "id" | "points" | "reference"> }) {
  return (
    <Alert tone="warning" title="A purchase is waiting for the cardholder">
      {formatPoints(topUp.points)} Points ({topUp.reference}) are added once the payment is authenticated.{" "}
      <Link href={`/dashboard/history/${topUp.id}`} className="font-semibold underline">
        Complete payment
      </Link>
    </Alert>
  );
}
