import Link from "next/link";
import { autoRechargeLine } from "@/components/dashboard/balance-notices";
import { formatPoints, formatUtcDay } from "@/lib/format";
import { type Balances, heldPointsText } from "@/lib/points/after-payment/view";
import type { ExpiringPoints } from "@/lib/points/balance/balance";
import type { BalanceAlerts } from "@/lib/points/recharge/load-balance-alerts";

/** The Overview's balance: the Points available, auto-recharge's month, the Points disputes hold, and (for an admin) Buy. */
export function BalanceCard({
  balances,
  alerts,
  isAdmin,
  nextExpiry,
}: {
  balances: Balances;
  alerts: BalanceAlerts;
  isAdmin: boolean;
  nextExpiry?: ExpiringPoints;
}) {
  const rechargeLine = autoRechargeLine(alerts);
  return (
    <section
      aria-labelledby="balance-title"
      className="flex flex-col justify-between gap-6 rounded-xl bg-gradient-to-br from-indigo-600 to-indigo-800 p-6 text-white shadow-sm lg:col-span-1"
    >
      <div>
        <h2 id="balance-title" className="text-sm font-medium uppercase tracking-wide text-indigo-100">
          Points balance
        </h2>
        <p className="mt-2 text-5xl font-semibold tabular-nums" data-testid="overview-balance">
          {formatPoints(balances.pointsBalance)}
        </p>
        <p className="mt-1 text-sm text-indigo-100">Points available to your organisation</p>
        {rechargeLine && (
          <p className="mt-3 text-sm text-white" data-testid="overview-auto-recharge">
            {rechargeLine}
          </p>
        )}
        {nextExpiry && (
          <p className="mt-3 text-sm text-white" data-testid="overview-next-expiry">
            {formatPoints(nextExpiry.points)} Points expire on{" "}
            {formatUtcDay(nextExpiry.expiresAt.toISOString().slice(0, 10))}
          </p>
        )}
        {balances.heldPoints > 0 && <HeldPoints balances={balances} />}
      </div>
      {isAdmin && (
        <Link
          href="/dashboard/buy"
          className="inline-flex w-fit items-center rounded-md bg-white px-3.5 py-2 text-sm font-semibold text-indigo-700 shadow-sm hover:bg-indigo-50 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-white"
        >
          Buy Points
        </Link>
      )}
    </section>
  );
}

/** The Points open disputes hold apart from the balance, with the way to the disputed purchases. */
function HeldPoints({ balances }: { balances: Balances }) {
  return (
    <p className="mt-3 rounded-md bg-white/10 px-3 py-2 text-sm text-white" data-testid="overview-held">
      <span className="font-semibold tabular-nums">{heldPointsText(balances)}</span>, apart from the balance: they
      cannot be spent until it is settled, and come back if it is won.{" "}
      <Link href="/dashboard/history?after=disputed" className="font-semibold underline">
        Disputed purchases
      </Link>
    </p>
  );
}
