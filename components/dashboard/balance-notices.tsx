import Link from "next/link";
import { Alert } from "@/components/ui/alert";
import { lowBalanceText, pausedReasonText, rechargedThisMonthText } from "@/lib/points/recharge/balance-alerts";
import type { BalanceAlerts } from "@/lib/points/recharge/load-balance-alerts";

/**
 * The Overview's notices about the balance settings: the balance is below the low-balance alert
 * (until it is back at or above it), and auto-recharge is paused, with what to do about it (only
 * an admin can buy or save, so a member is told who does).
 */
export function BalanceNotices({ alerts, isAdmin }: { alerts: BalanceAlerts; isAdmin: boolean }) {
  const { autoRecharge, lowBalanceThreshold } = alerts;
  const paused = autoRecharge.enabled && autoRecharge.pausedReason !== null;
  return (
    <>
      {alerts.low && lowBalanceThreshold !== null && (
        <div data-testid="low-balance-notice">
          <Alert tone="warning" title="Low balance">
            {lowBalanceText(alerts.pointsBalance, lowBalanceThreshold)}
            {isAdmin && (
              <>
                {" "}
                <Link href="/dashboard/buy" className="font-semibold underline">
                  Buy Points
                </Link>
              </>
            )}
          </Alert>
        </div>
      )}
      {paused && autoRecharge.pausedReason !== null && (
        <div data-testid="auto-recharge-paused-notice">
          <Alert tone="warning" title="Auto-recharge is paused">
            It is paused because {pausedReasonText(autoRecharge.pausedReason)}, so nothing more is bought automatically.
            Check the default card in{" "}
            <Link href="/dashboard/payment-details" className="font-semibold underline">
              Payment details
            </Link>
            , then {isAdmin ? "save" : "an admin saves"} the auto-recharge setting again in{" "}
            <Link href="/dashboard/settings" className="font-semibold underline">
              Settings
            </Link>{" "}
            to resume it.
          </Alert>
        </div>
      )}
    </>
  );
}

/** "Auto-recharge: 2,500 of 5,000 Points bought this month", while auto-recharge is on. */
export function autoRechargeLine(alerts: BalanceAlerts): string | null {
  const { autoRecharge } = alerts;
  if (!autoRecharge.enabled) return null;
  const month = rechargedThisMonthText(autoRecharge.boughtThisMonth, autoRecharge.monthlyMax, autoRecharge.capReached);
  return `Auto-recharge${autoRecharge.pausedReason === null ? "" : " (paused)"}: ${month}`;
}
