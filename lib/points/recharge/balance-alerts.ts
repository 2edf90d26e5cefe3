import { formatPoints } from "@/lib/format";
import type { BalanceSettings } from "./balance-settings";

/**
 * What the dashboard says about the balance settings (docs/contract.md §9), in one place so that
 * Settings, the Overview and the header word them alike: whether the balance is low, what
 * auto-recharge will do, what it bought this month and why it is paused. No database code here:
 * the header's client component imports it (the reads are in load-balance-alerts.ts).
 */

/** Below the threshold, and only then: a balance equal to it is not low (balance.low's own rule). */
export function isLowBalance(pointsBalance: number, threshold: number | null): boolean {
  return threshold !== null && pointsBalance < threshold;
}

/** "Your balance is low: 120 Points, below your alert at 500." */
export function lowBalanceText(pointsBalance: number, threshold: number): string {
  return `Your balance is low: ${formatPoints(pointsBalance)} Points, below your alert at ${formatPoints(threshold)}.`;
}

/**
 * "When your balance falls below 300 Points, we buy 1,000 Points on your default card, at most
 * 5,000 Points a month." Null when auto-recharge is off or not fully set.
 */
export function autoRechargeSentence(autoRecharge: BalanceSettings["autoRecharge"]): string | null {
  const { enabled, below, points, monthlyMax } = autoRecharge;
  if (!enabled || below === null || points === null) return null;
  const cap = monthlyMax === null ? ", with no monthly cap" : `, at most ${formatPoints(monthlyMax)} Points a month`;
  return `When your balance falls below ${formatPoints(below)} Points, we buy ${formatPoints(points)} Points on your default card${cap}.`;
}

/**
 * "2,500 of 5,000 Points bought this month" ("2,500 Points bought this month" with no cap), and
 * when the cap leaves no room for another bundle, "; the cap is reached: no more auto-recharge this month".
 */
export function rechargedThisMonthText(bought: number, monthlyMax: number | null, capReached = false): string {
  const total =
    monthlyMax === null
      ? `${formatPoints(bought)} Points bought this month`
      : `${formatPoints(bought)} of ${formatPoints(monthlyMax)} Points bought this month`;
  return capReached ? `${total}; the cap is reached: no more auto-recharge this month` : total;
}

/**
 * Whether the month's cap leaves no room for another bundle: auto-recharge skips a purchase that
 * would take the month's total above the cap (lib/points/recharge/auto-recharge.ts), so this is "no more
 * auto-recharge this month", even when the total is below the cap itself.
 */
export function isCapReached(bought: number, points: number | null, monthlyMax: number | null): boolean {
  return monthlyMax !== null && points !== null && bought + points > monthlyMax;
}

const PAUSE_REASONS: Record<string, string> = {
  card_declined: "your default card was declined",
  insufficient_funds: "your default card was declined for insufficient funds",
  expired_card: "your default card has expired",
  authentication_required: "your card's bank asked for authentication, which an automatic purchase cannot give",
  payment_action_required: "your card's bank asked for authentication, which an automatic purchase cannot give",
  no_payment_method: "your organisation has no default card",
  payment_method_required: "your organisation has no default card",
  invalid_payment_method: "your default card can no longer be charged",
  limit_exceeded: "the purchase would go over one of your organisation's limits",
};

/** Why auto-recharge is paused, as the end of "Auto-recharge is paused because …". */
export function pausedReasonText(reason: string): string {
  return PAUSE_REASONS[reason] ?? `its last purchase was refused (${reason})`;
}
