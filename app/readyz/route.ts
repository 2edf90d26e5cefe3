// GET /readyz – whether to send this instance traffic: the database answers, its migrations are
// current, and it is not shutting down (then 503 at once); the billing provider is reported only
import { log } from "@/lib/observability/log";
import { isShuttingDown } from "@/lib/server/lifecycle";
import { checkReadiness, type ReadinessReport, uncheckedReport } from "@/lib/server/readiness";
import { getRuntime } from "@/lib/server/runtime";

export const dynamic = "force-dynamic";

export async function GET(): Promise<Response> {
  if (isShuttingDown()) return answer(uncheckedReport("shutting_down"));
  let report: ReadinessReport;
  try {
    const runtime = await getRuntime();
    report = await checkReadiness({ db: runtime.db, provider: runtime.provider });
  } catch (error) {
    // The runtime could not be made (the database is down at startup): said in the log, not the body.
    log().error(
      { event: "readiness_not_running", err: error },
      `readiness: the service is not running: ${error instanceof Error ? error.message : String(error)}`,
    );
    report = { ...uncheckedReport("not_ready"), database: { status: "unavailable" } };
  }
  return answer(report);
}

function answer(report: ReadinessReport): Response {
  return Response.json(report, {
    status: report.status === "ready" ? 200 : 503,
    headers: { "Cache-Control": "no-store" },
  });
}
