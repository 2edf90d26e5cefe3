import { createHash, timingSafeEqual } from "node:crypto";
import { env } from "@/lib/env";
import { requestIdOf } from "@/lib/http/api";
import { metrics } from "@/lib/observability/metrics";
import { getRuntime } from "@/lib/server/runtime";
import { refreshScrapeGauges } from "@/lib/server/scrape";
import { observeRequest } from "./observe";

const NO_STORE = { "Cache-Control": "no-store", "X-Content-Type-Options": "nosniff" };

function plain(status: number, text: string, headers: Record<string, string> = {}): Response {
  return new Response(`${text}\n`, {
    status,
    headers: { "Content-Type": "text/plain; charset=utf-8", ...NO_STORE, ...headers },
  });
}

/** Compared as SHA-256 digests in constant time: neither the token's length nor its bytes leak by timing. */
export function tokenMatches(authorization: string | null, token: string): boolean {
  const given = /^bearer[ \t]+(\S+)[ \t]*$/i.exec(authorization ?? "")?.[1] ?? "";
  const digest = (text: string) => createHash("sha256").update(text).digest();
  return timingSafeEqual(digest(given), digest(token)) && given.length > 0;
}

/**
 * `GET /metrics`: off (404, as if there were no such page) without METRICS_TOKEN; 401 without the
 * token as `Authorization: Bearer <token>`; otherwise the registry in Prometheus' text format,
 * with the database's gauges read now.
 */
export async function metricsResponse(request: Request): Promise<Response> {
  const token = env().METRICS_TOKEN;
  if (!token) return plain(404, "Not found.");
  return observeRequest(request, requestIdOf(request), async () => {
    if (!tokenMatches(request.headers.get("authorization"), token)) {
      return plain(401, "Send the metrics token as Authorization: Bearer <METRICS_TOKEN>.", {
        "WWW-Authenticate": 'Bearer realm="metrics"',
      });
    }
    const runtime = await getRuntime();
    await refreshScrapeGauges(runtime.db, runtime.clock.now(), runtime.database.kind);
    const { registry } = metrics();
    return new Response(await registry.metrics(), {
      status: 200,
      headers: { "Content-Type": registry.contentType, ...NO_STORE },
    });
  });
}
