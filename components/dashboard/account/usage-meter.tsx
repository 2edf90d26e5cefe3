/** A labelled bar of used against a limit; amber from 80 %, red when full. */
export function UsageMeter({ label, used, limit, unit }: { label: string; used: number; limit: number; unit: string }) {
  const ratio = limit > 0 ? Math.min(1, used / limit) : 1;
  const tone = ratio >= 1 ? "bg-rose-600" : ratio >= 0.8 ? "bg-amber-500" : "bg-indigo-600";
  const format = (value: number) => new Intl.NumberFormat("en-GB").format(value);
  return (
    <div>
      <div
        role="progressbar"
        aria-label={label}
        aria-valuemin={0}
        aria-valuemax={limit}
        aria-valuenow={Math.min(used, limit)}
        aria-valuetext={`${format(used)} of ${format(limit)} ${unit}`}
        className="h-2 w-full overflow-hidden rounded-full bg-slate-100"
      >
        <div className={`h-full rounded-full ${tone}`} style={{ width: `${Math.round(ratio * 100)}%` }} />
      </div>
      <p className="mt-2 text-sm text-slate-700">
        <span className="font-semibold tabular-nums text-slate-900">{format(used)}</span> of{" "}
        <span className="tabular-nums">{format(limit)}</span> {unit}
      </p>
    </div>
  );
}
