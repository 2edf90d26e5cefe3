import type { Metadata } from "next";
import { AuditFilters } from "@/components/dashboard/audit-filters";
import { buttonClasses } from "@/components/ui/button";
import { Card, PageHeader } from "@/components/ui/card";
import { pageContext } from "@/lib/dashboard/context";
import { formatDateTime } from "@/lib/format";
import { AUDIT_ACTIONS, actorLabels, listAudit, parseAuditFilters } from "@/lib/points/audit";

export const metadata: Metadata = { title: "Audit log · Points" };

const PAGE_SIZE = 100;

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

export default async function AuditPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const { user, runtime } = await pageContext();
  const filters = parseAuditFilters(await searchParams);
  const entries = await listAudit(runtime.db, { organizationId: user.organizationId, ...filters, limit: PAGE_SIZE });
  const who = await actorLabels(runtime.db, entries);
  const query = new URLSearchParams({
    ...(filters.action ? { action: filters.action } : {}),
    ...(filters.actorType ? { actor: filters.actorType } : {}),
  }).toString();

  return (
    <>
      <PageHeader
        title="Audit log"
        description="Every change made to your organisation: by whom (a person in the dashboard, an API key, or your service's operator), when, and what it was before and after. Entries cannot be changed or deleted."
        actions={
          <a
            href={`/dashboard/audit/export${query ? `?${query}` : ""}`}
            className={buttonClasses("secondary")}
            download
          >
            Export CSV
          </a>
        }
      />
      <div className="space-y-6">
        <AuditFilters actions={AUDIT_ACTIONS} filters={filters} />
        <Card title="Changes" description={`The latest ${PAGE_SIZE}, newest first; the export has up to 10,000.`}>
          {entries.length === 0 ? (
            <p className="text-sm text-slate-600">No changes recorded{query ? " with these filters" : ""}.</p>
          ) : (
            <div
              className="overflow-x-auto focus-visible:outline-2 focus-visible:outline-indigo-600"
              // biome-ignore lint/a11y/noNoninteractiveTabindex: it scrolls sideways on a phone; a keyboard must reach it to scroll it.
              tabIndex={0}
            >
              <table className="w-full text-left text-sm" aria-label="Audit log">
                <thead className="text-xs text-slate-600">
                  <tr>
                    <th className="py-2 pr-4 font-medium">When</th>
                    <th className="py-2 pr-4 font-medium">Who</th>
                    <th className="py-2 pr-4 font-medium">What</th>
                    <th className="py-2 font-medium">Change</th>
                  </tr>
                </thead>
                <tbody className="divide-y divide-slate-100">
                  {entries.map((entry) => (
                    <tr key={entry.id} data-testid="audit-entry" className="align-top">
                      <td className="whitespace-nowrap py-2 pr-4 text-xs text-slate-700">{formatDateTime(entry.at)}</td>
                      <td className="py-2 pr-4 text-xs text-slate-800">{who.get(entry.id)}</td>
                      <td className="py-2 pr-4">
                        <span className="font-mono text-xs text-slate-900">{entry.action}</span>
                        <span className="block break-all font-mono text-xs text-slate-500">{entry.target}</span>
                      </td>
                      <td className="py-2 text-xs text-slate-700">
                        {entry.before !== null && <span className="block">Before: {summary(entry.before)}</span>}
                        {entry.after !== null && <span className="block">After: {summary(entry.after)}</span>}
                        {entry.requestId && <span className="block text-slate-500">Request {entry.requestId}</span>}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </Card>
      </div>
    </>
  );
}
