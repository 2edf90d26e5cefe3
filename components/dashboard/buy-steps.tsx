const STEPS = ["Choose a bundle", "Confirm", "Done"] as const;

/** Where the buyer is in the purchase: 1-based `current`. */
export function BuySteps({ current }: { current: 1 | 2 | 3 }) {
  return (
    <ol className="mb-6 flex flex-wrap items-center gap-x-3 gap-y-2 text-sm" aria-label="Purchase steps">
      {STEPS.map((label, index) => {
        const step = index + 1;
        const state = step < current ? "done" : step === current ? "current" : "todo";
        return (
          <li key={label} className="flex items-center gap-2" aria-current={state === "current" ? "step" : undefined}>
            <span
              className={`inline-flex h-6 w-6 items-center justify-center rounded-full text-xs font-semibold ${
                state === "current"
                  ? "bg-indigo-600 text-white"
                  : state === "done"
                    ? "bg-indigo-100 text-indigo-700"
                    : "bg-slate-200 text-slate-600"
              }`}
            >
              {state === "done" ? "✓" : step}
            </span>
            <span className={state === "current" ? "font-semibold text-slate-900" : "text-slate-600"}>{label}</span>
            {step < STEPS.length && <span aria-hidden="true" className="mx-1 h-px w-6 bg-slate-300 sm:w-10" />}
          </li>
        );
      })}
    </ol>
  );
}
