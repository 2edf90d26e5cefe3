import { formatMoney, formatPoints } from "@/lib/format";
import type { BundleOption } from "@/lib/points/views/buy-options";

/**
 * The seven bundles as radio cards. A bundle that cannot be bought (lib/points/views/buy-options.ts says
 * which and why) is shown but cannot be chosen, with the reason.
 */
export function BuyBundlePicker({
  bundles,
  currency,
  selected,
  maxPointsPerTopUp,
  disabled,
}: {
  bundles: BundleOption[];
  currency: string;
  selected?: number;
  maxPointsPerTopUp: number | null;
  disabled: boolean;
}) {
  // The smallest bundle's unit price is the list price the larger bundles' savings are measured against.
  const base = bundles.find((bundle) => bundle.amount !== null);
  const baseUnit = base?.amount != null ? base.amount / base.points : null;
  return (
    <fieldset>
      <legend className="text-sm font-medium text-slate-900">Bundle</legend>
      <div className="mt-2 grid grid-cols-2 gap-3 sm:grid-cols-3 lg:grid-cols-4">
        {bundles.map(({ points, amount, unavailable: why }) => {
          const unavailable = why !== null;
          const saving = amount !== null && baseUnit ? Math.round((1 - amount / (baseUnit * points)) * 100) : 0;
          const id = `bundle-${points}`;
          return (
            <label
              key={points}
              htmlFor={id}
              data-testid="bundle-option"
              className="relative flex cursor-pointer flex-col rounded-xl border border-slate-200 bg-white p-4 shadow-sm transition hover:border-indigo-300 has-[:checked]:border-indigo-600 has-[:checked]:ring-2 has-[:checked]:ring-indigo-600 has-[:disabled]:cursor-not-allowed has-[:disabled]:bg-slate-50 has-[:disabled]:hover:border-slate-200 has-[:focus-visible]:outline-2 has-[:focus-visible]:outline-offset-2 has-[:focus-visible]:outline-indigo-600"
            >
              <input
                id={id}
                type="radio"
                name="points"
                value={points}
                defaultChecked={selected === points && !unavailable}
                disabled={disabled || unavailable}
                required
                className="sr-only"
              />
              <span className="flex items-start justify-between gap-2">
                <span className="text-xl font-semibold tabular-nums text-slate-900">{formatPoints(points)}</span>
                {saving > 0 && !unavailable && (
                  <span className="whitespace-nowrap rounded-full bg-emerald-50 px-2 py-0.5 text-xs font-medium text-emerald-700">
                    Save {saving}%
                  </span>
                )}
              </span>
              <span className="text-xs font-medium uppercase tracking-wide text-slate-500">Points</span>
              <span className="mt-3 text-base font-semibold tabular-nums text-slate-900">
                {amount !== null ? formatMoney(amount, currency) : "—"}
              </span>
              <span className="text-xs text-slate-500">
                {why === "not_sold" || amount === null
                  ? `Not sold in ${currency}`
                  : why === "over_limit"
                    ? `Above your limit of ${formatPoints(maxPointsPerTopUp ?? 0)} per purchase`
                    : `${formatMoney(Math.round((amount / points) * 100), currency)} per 100 Points`}
              </span>
            </label>
          );
        })}
      </div>
    </fieldset>
  );
}
