import { type RequestContext, runWithRequestContext } from "./context";
import { log } from "./log";
import { metrics, secondsSince } from "./metrics";

/**
 * The route templates of the served endpoints. Logs and metrics name a request by its template,
 * never by its path: ids in paths would make a metric series per purchase.
 */
const ROUTES: [RegExp, string][] = [
  [/^\/v3\/points\/top-ups$/, "/v3/points/top-ups"],
  [/^\/v3\/points\/top-ups\/[^/]+$/, "/v3/points/top-ups/{id}"],
  [/^\/v3\/points\/payment-methods$/, "/v3/points/payment-methods"],
  [/^\/v3\/points\/balance$/, "/v3/points/balance"],
  [/^\/v3\/points\/quotes$/, "/v3/points/quotes"],
  [/^\/v3\/openapi\.json$/, "/v3/openapi.json"],
  [/^\/metrics$/, "/metrics"],
];

/** Any other path (the /v3 catch-all's 404s) is one route, whatever was asked for. */
export const UNMATCHED_ROUTE = "/v3/{unmatched}";

export function routeTemplate(pathname: string): string {
  return ROUTES.find(([pattern]) => pattern.test(pathname))?.[1] ?? UNMATCHED_ROUTE;
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
