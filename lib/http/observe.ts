import { API_ROUTES, matchRoute } from "@/lib/http/routes";
import { type RequestContext, runWithRequestContext } from "@/lib/observability/context";
import { log } from "@/lib/observability/log";
import { metrics, secondsSince } from "@/lib/observability/metrics";

/** What logs and metrics label a request by: the API's route templates, and this endpoint. */
const ROUTES = [...API_ROUTES, "/metrics"];

/** Any other path (the /v3 catch-all's 404s) is one route, whatever was asked for. */
export const UNMATCHED_ROUTE = "/v3/{unmatched}";

export function routeTemplate(pathname: string): string {
  return matchRoute(pathname, ROUTES) ?? UNMATCHED_ROUTE;
}

/**
 * Runs one request inside its log context (request id, then organisation and API key once
 * authenticated), and when it is answered writes its one line and observes its latency.
 */
export async function observeRequest(
  request: Request,
  requestId: string,
  handle: () => Promise<Response>,
): Promise<Response> {
  const started = performance.now();
  const context: RequestContext = { requestId };
  return runWithRequestContext(context, async () => {
    let status = 500;
    try {
      const response = await handle();
      status = response.status;
      return response;
    } finally {
      const seconds = secondsSince(started);
      const method = request.method;
      const route = routeTemplate(new URL(request.url).pathname);
      metrics().httpDuration.observe({ method, route, status: String(status) }, seconds);
      log().info(
        {
          event: "request",
          method,
          route,
          status,
          duration_ms: Math.round(seconds * 1000),
          organization_id: context.organizationId ?? null,
          api_key_id: context.apiKeyId ?? null,
        },
        "request",
      );
    }
  });
}
