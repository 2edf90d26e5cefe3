import type { ReactNode } from "react";

/** One limit on the Limits page: its name, what it is at now, and the rule it holds a purchase to. */
export function LimitCard({
  title,
  rule,
  testId,
  children,
}: {
  title: string;
  rule: string;
  testId: string;
  children: ReactNode;
}) {
  return (
    <section
      className="flex flex-col rounded-xl border border-slate-200 bg-white p-5 shadow-sm"
      data-testid={testId}
      aria-label={title}
    >
      <h2 className="text-sm font-semibold text-slate-900">{title}</h2>
      <div className="mt-3 flex-1">{children}</div>
      <p className="mt-4 border-t border-slate-100 pt-3 text-xs text-slate-500">{rule}</p>
    </section>
  );
}

export function NoLimit() {
  return <p className="text-2xl font-semibold text-slate-900">No limit</p>;
}
