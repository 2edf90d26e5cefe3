// GET /dashboard/audit/export – the signed-in organisation's audit log as CSV, with the page's filters
import { getSessionUser } from "@/lib/dashboard/session";
import { auditCsv, listAudit, parseAuditFilters } from "@/lib/points/audit";
import { getRuntime } from "@/lib/server/runtime";

export const dynamic = "force-dynamic";

/** The latest 10,000 entries: the log of one organisation, for its admins and members alike. */
export async function GET(request: Request): Promise<Response> {
  const user = await getSessionUser();
  if (!user) {
    return new Response("Sign in to export your organisation's audit log.\n", {
      status: 401,
      headers: { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store" },
    });
  }
  const filters = parseAuditFilters(Object.fromEntries(new URL(request.url).searchParams.entries()));
  const runtime = await getRuntime();
  const entries = await listAudit(runtime.db, { organizationId: user.organizationId, ...filters, limit: 10_000 });
  const date = new Date().toISOString().slice(0, 10);
  return new Response(auditCsv(entries), {
    headers: {
      "Content-Type": "text/csv; charset=utf-8",
      "Content-Disposition": `attachment; filename="audit-${date}.csv"`,
      "Cache-Control": "no-store",
      "X-Content-Type-Options": "nosniff",
    },
  });
}
