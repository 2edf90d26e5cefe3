import Link from "next/link";
import { Alert } from "@/components/ui/alert";
import { Badge } from "@/components/ui/badge";
import { Card } from "@/components/ui/card";
import type { ActionState } from "@/lib/dashboard/action-state";
import { formatPoints } from "@/lib/format";
import {
  autoRechargeSentence,
  lowBalanceText,
  pausedReasonText,
  rechargedThisMonthText,
} from "@/lib/points/recharge/balance-alerts";
import type { BalanceAlerts } from "@/lib/points/recharge/load-balance-alerts";
import { BalanceSettingsForm } from "./balance-settings-form";

const linkClass = "font-medium underline underline-offset-2";

/**
 * Settings → Balance alerts and auto-recharge: what is saved, in words (what will happen, what was
 * bought this month, why it is paused), then the form. Members see the same, with the form disabled.
 */
export function BalanceSettingsSection({
  alerts,
  canEdit,
  action,
}: {
  alerts: BalanceAlerts;
  canEdit: boolean;
  action: (
    state: ActionState<{ autoRechargeEnabled: boolean }>,
    data: FormData,
  ) => Promise<ActionState<{ autoRechargeEnabled: boolean }>>;
}) {
  const { autoRecharge, lowBalanceThreshold } = alerts;
  const sentence = autoRechargeSentence(autoRecharge);
  const paused = autoRecharge.enabled && autoRecharge.pausedReason !== null;
  return (
    <Card
      title="Balance alerts and auto-recharge"
      description="A warning when the balance runs low, and a bundle bought on your default card when a spend takes it below a level."
    >
      <div className="space-y-4" data-testid="balance-settings-status">
        {paused && autoRecharge.pausedReason !== null && (
          <Alert tone="warning" title="Auto-recharge is paused">
            It is paused because {pausedReasonText(autoRecharge.pausedReason)}. Check the default card in{" "}
            <Link href="/dashboard/payment-details" className={linkClass}>
              Payment details
            </Link>
            , then save this setting again: saving resumes it.
          </Alert>
        )}
        <dl className="grid gap-4 sm:grid-cols-2">
          <div>
            <dt className="text-xs font-medium uppercase tracking-wide text-slate-500">Low-balance alert</dt>
            <dd className="mt-1.5 text-sm text-slate-900">
              {lowBalanceThreshold === null ? (
                <span className="text-slate-600">None</span>
              ) : (
                <>
                  Below <span className="font-semibold">{formatPoints(lowBalanceThreshold)} Points</span>
                  {alerts.low && (
                    <span className="mt-1 block text-amber-800">
                      {lowBalanceText(alerts.pointsBalance, lowBalanceThreshold)}
                    </span>
                  )}
                </>
              )}
            </dd>
          </div>
          <div>
            <dt className="text-xs font-medium uppercase tracking-wide text-slate-500">Auto-recharge</dt>
            <dd className="mt-1.5 flex flex-wrap items-center gap-2 text-sm text-slate-900">
              {!autoRecharge.enabled ? (
                <Badge tone="slate">Off</Badge>
              ) : paused ? (
                <Badge tone="amber">Paused</Badge>
              ) : (
                <Badge tone="green">On</Badge>
              )}
              <span data-testid="auto-recharge-month">
                {rechargedThisMonthText(
                  autoRecharge.boughtThisMonth,
                  autoRecharge.monthlyMax,
                  autoRecharge.enabled && autoRecharge.capReached,
                )}
              </span>
            </dd>
          </div>
        </dl>
        <p className="text-sm text-slate-700" data-testid="auto-recharge-sentence">
          {sentence ?? "Auto-recharge is off: nothing is bought without someone asking."}
        </p>
      </div>
      <div className="mt-6 border-t border-slate-100 pt-6">
        <BalanceSettingsForm
          saved={{
            lowBalanceThreshold: lowBalanceThreshold === null ? "" : String(lowBalanceThreshold),
            autoRechargeEnabled: autoRecharge.enabled,
            autoRechargeBelow: autoRecharge.below === null ? "" : String(autoRecharge.below),
            autoRechargePoints: autoRecharge.points === null ? "" : String(autoRecharge.points),
            autoRechargeMonthlyMax: autoRecharge.monthlyMax === null ? "" : String(autoRecharge.monthlyMax),
          }}
          paused={paused}
          canEdit={canEdit}
          action={action}
        />
      </div>
    </Card>
  );
}
