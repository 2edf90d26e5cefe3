const STEPS = ["Choose a bundle", "Confirm", "Done"] as const;

/**
 * Where the buyer is in the purchase: 1-based `current`. Step 3 is the outcome page: "Done" with a
 * check once paid; for any other outcome `last` names it instead ("Declined"), with no check.
 */
export function BuySteps({ current, last }: { current: 1 | 2 | 3; last?: string }) {
  return (
    <ol className="mb-6 flex flex-wrap items-center gap-x-3 gap-y-2 text-sm" aria-label="Purchase steps">
      {STEPS.map((name, index) => {
        const step = index + 1;
        const finished = step === 3 && current === 3 && !last;
        const label = step === 3 && last ? last : name;
        const state = step < current || finished ? "done" : step === current ? "current" : "todo";
        return (
          <li key={name} className="flex items-center gap-2" aria-current={step === current ? "step" : undefined}>
            <span
              className={`inline-flex h-6 w-6 items-center justify-center rounded-full text-xs font-semibold ${
                state === "current" || finished
                  ? "bg-indigo-600 text-white"
                  : state === "done"
                    ? "bg-indigo-100 text-indigo-700"
                    : "bg-slate-200 text-slate-600"
              }`}
            >
              {state === "done" ? "✓" : step}
            </span>
            <span className={step === current ? "font-semibold text-slate-900" : "text-slate-600"}>
              {label}
              {state === "done" && <span className="sr-only"> (done)</span>}
            </span>
            {step < STEPS.length && <span aria-hidden="true" className="mx-1 h-px w-6 bg-slate-300 sm:w-10" />}
          </li>
        );
      })}
    </ol>
  );
}
