import type { AuditEntry } from "@/lib/db/schema";
import { formatDateTime } from "@/lib/format";

/** A before or after value in one line: its fields as `name: value`. */
function summary(value: unknown): string {
  if (value === null || value === undefined) return "";
  if (typeof value !== "object") return String(value);
  return Object.entries(value as Record<string, unknown>)
    .map(
      ([key, field]) =>
        `${key}: ${field === null ? "none" : typeof field === "object" ? JSON.stringify(field) : String(field)}`,
    )
    .join(", ");
}

/**
 * The organisation's changes, newest first: a table from `sm` up, and on a phone each entry a card
 * of its own (when and who, then what, then the change), so nothing is cut off or scrolls sideways.
 */
export function AuditTable({ entries, who }: { entries: AuditEntry[]; who: Map<string, string> }) {
  return (
    <table className="w-full text-left text-sm max-sm:block" aria-label="Audit log">
      <thead className="text-xs text-slate-600 max-sm:hidden">
        <tr>
          <th className="py-2 pr-4 font-medium">When</th>
          <th className="py-2 pr-4 font-medium">Who</th>
          <th className="py-2 pr-4 font-medium">What</th>
          <th className="py-2 font-medium">Change</th>
        </tr>
      </thead>
      <tbody className="divide-y divide-slate-100 max-sm:block">
        {entries.map((entry) => (
          <tr
            key={entry.id}
            data-testid="audit-entry"
            className="align-top max-sm:flex max-sm:flex-wrap max-sm:gap-x-3 max-sm:gap-y-1 max-sm:py-3"
          >
            <td className="whitespace-nowrap py-2 pr-4 text-xs text-slate-700 max-sm:p-0">
              {formatDateTime(entry.at)}
            </td>
            <td className="py-2 pr-4 text-xs text-slate-800 max-sm:p-0 max-sm:break-all">{who.get(entry.id)}</td>
            <td className="py-2 pr-4 max-sm:w-full max-sm:p-0">
              <span className="font-mono text-xs text-slate-900">{entry.action}</span>
              <span className="block break-all font-mono text-xs text-slate-500">{entry.target}</span>
            </td>
            <td className="py-2 text-xs text-slate-700 max-sm:w-full max-sm:p-0 max-sm:break-words">
              {entry.before !== null && <span className="block">Before: {summary(entry.before)}</span>}
              {entry.after !== null && <span className="block">After: {summary(entry.after)}</span>}
              {entry.requestId && <span className="block text-slate-500">Request {entry.requestId}</span>}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
