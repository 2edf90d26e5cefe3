import { UsageMeter } from "@/components/dashboard/account/usage-meter";
import { formatPoints } from "@/lib/format";
import type { LimitUsage } from "@/lib/points/limits/limit-usage";
import { LimitCard, NoLimit } from "./limit-card";

export function MaxPerTopUpCard({ usage }: { usage: LimitUsage }) {
  return (
    <LimitCard
      title="Largest single purchase"
      rule="A purchase of a larger bundle is refused; the API answers limit_exceeded."
      testId="limit-max-per-top-up"
    >
      {usage.maxPointsPerTopUp === null ? (
        <NoLimit />
      ) : (
        <p className="text-2xl font-semibold tabular-nums text-slate-900">
          {formatPoints(usage.maxPointsPerTopUp)} <span className="text-sm font-normal text-slate-600">Points</span>
        </p>
      )}
    </LimitCard>
  );
}

export function MaxBalanceCard({ usage }: { usage: LimitUsage }) {
  return (
    <LimitCard
      title="Maximum balance"
      rule="Balance plus purchases not settled yet (awaiting the cardholder or being confirmed) and Points a dispute may give back may not pass it; the API answers limit_exceeded."
      testId="limit-max-balance"
    >
      {usage.balance.limit === null ? (
        <NoLimit />
      ) : (
        <UsageMeter
          label="Balance against the maximum"
          used={usage.balance.used}
          limit={usage.balance.limit}
          unit="Points"
        />
      )}
      <p className="mt-2 text-xs text-slate-500">
        Balance {formatPoints(usage.balance.pointsBalance)} + {formatPoints(usage.balance.pendingPoints)} in purchases
        not settled yet
        {usage.balance.disputedPoints > 0 ? ` + ${formatPoints(usage.balance.disputedPoints)} held by disputes` : ""}.
      </p>
    </LimitCard>
  );
}

export function FrequencyLimitCard({ usage }: { usage: LimitUsage }) {
  const frequency = usage.frequency.limit;
  return (
    <LimitCard
      title="Purchase frequency"
      rule="Every purchase counts, failed ones too; over the limit the API answers frequency_limit_reached and says when to try again."
      testId="limit-frequency"
    >
      {frequency === null ? (
        <NoLimit />
      ) : (
        <UsageMeter
          label="Purchases in the current window"
          used={usage.frequency.used ?? 0}
          limit={frequency.count}
          unit={`purchases in the last ${describeSeconds(frequency.windowSeconds)}`}
        />
      )}
    </LimitCard>
  );
}

export function DailyPointsCard({ usage }: { usage: LimitUsage }) {
  return (
    <LimitCard
      title="Daily Points"
      rule="Points bought or awaiting payment in the last 24 hours, rolling; failed purchases do not count. Over it, the API answers daily_limit_reached and says when to try again."
      testId="limit-daily"
    >
      {usage.daily.limit === null ? (
        <>
          <NoLimit />
          <p className="mt-2 text-sm text-slate-700">
            <span className="font-semibold tabular-nums">{formatPoints(usage.daily.used)}</span> Points bought or
            awaiting payment in the last 24 hours.
          </p>
        </>
      ) : (
        <UsageMeter
          label="Points in the last 24 hours"
          used={usage.daily.used}
          limit={usage.daily.limit}
          unit="Points in the last 24 hours"
        />
      )}
    </LimitCard>
  );
}

function describeSeconds(seconds: number): string {
  if (seconds % 86_400 === 0) return seconds === 86_400 ? "24 hours" : `${seconds / 86_400} days`;
  if (seconds % 3_600 === 0) return seconds === 3_600 ? "hour" : `${seconds / 3_600} hours`;
  if (seconds % 60 === 0) return seconds === 60 ? "minute" : `${seconds / 60} minutes`;
  return `${seconds} seconds`;
}
