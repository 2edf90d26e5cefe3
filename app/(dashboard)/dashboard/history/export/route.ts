// GET /dashboard/history/export – the signed-in organisation's top-ups and spends as CSV, with the page's filters
import { getSessionUser } from "@/lib/dashboard/session";
import { readerOf } from "@/lib/points/services";
import { streamHistoryCsv } from "@/lib/points/views/history-csv";
import { historyExportName, parseHistoryFilters } from "@/lib/points/views/history-query";
import { getRuntime } from "@/lib/server/runtime";

export const dynamic = "force-dynamic";

export async function GET(request: Request): Promise<Response> {
  // The proxy redirects signed-out visitors, but this handler is the boundary: it checks again.
  const user = await getSessionUser();
  if (!user) {
    return new Response("Sign in to export your organisation's top-ups.\n", {
      status: 401,
      headers: { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store" },
    });
  }
  const { cursor: _cursor, ...filters } = parseHistoryFilters(
    Object.fromEntries(new URL(request.url).searchParams.entries()),
  );
  const runtime = await getRuntime();
  return new Response(streamHistoryCsv(readerOf(runtime), user.organizationId, filters), {
    headers: {
      "Content-Type": "text/csv; charset=utf-8",
      "Content-Disposition": `attachment; filename="${historyExportName(filters, runtime.clock.now())}"`,
      "Cache-Control": "no-store",
      "X-Content-Type-Options": "nosniff",
    },
  });
}
