// GET /healthz – the process is up: answers at once and touches nothing (no database, no provider)
export const dynamic = "force-dynamic";

export function GET(): Response {
  return Response.json({ status: "ok" }, { headers: { "Cache-Control": "no-store" } });
}
