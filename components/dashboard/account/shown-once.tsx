import type { ReactNode } from "react";
import { CopyButton } from "@/components/ui/copy-button";

/**
 * A secret shown this once (a new API key, a generated password): what it is, the warning that it
 * will not be shown again, and the value to select or copy. It lives only in this browser's state.
 */
export function ShownOnce({
  title,
  children,
  value,
  copyLabel,
  testId,
}: {
  title?: ReactNode;
  /** What to do with it, saying that it will not be shown again. */
  children: ReactNode;
  value: string;
  copyLabel: string;
  /** Test ids of the box and of the value. */
  testId: { box: string; value: string };
}) {
  return (
    <div
      className="w-full rounded-lg border border-emerald-200 bg-emerald-50 p-4"
      role="status"
      data-testid={testId.box}
    >
      {title && <p className="text-sm font-semibold text-emerald-900">{title}</p>}
      <p className={`${title ? "mt-1 " : ""}text-sm text-emerald-900`}>{children}</p>
      <div className="mt-3 flex items-center gap-2">
        <code
          className="min-w-0 flex-1 select-all break-all rounded-md bg-white px-3 py-2 font-mono text-sm text-slate-900 ring-1 ring-inset ring-emerald-200"
          data-testid={testId.value}
        >
          {value}
        </code>
        <CopyButton value={value} label={copyLabel} />
      </div>
    </div>
  );
}
