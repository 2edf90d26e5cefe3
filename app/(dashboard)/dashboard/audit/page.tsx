import type { Metadata } from "next";
import { AuditTable } from "@/components/dashboard/audit/audit-table";
import { AuditFilters } from "@/components/dashboard/audit-filters";
import { buttonClasses } from "@/components/ui/button";
import { Card, PageHeader } from "@/components/ui/card";
import { pageContext } from "@/lib/dashboard/context";
import { AUDIT_ACTIONS, actorLabels, listAudit, parseAuditFilters } from "@/lib/points/audit";

export const metadata: Metadata = { title: "Audit log · Points" };

const PAGE_SIZE = 100;

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
            <AuditTable entries={entries} who={who} />
          )}
        </Card>
      </div>
    </>
  );
}
