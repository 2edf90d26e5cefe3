// GET /metrics – Prometheus metrics, behind METRICS_TOKEN (404 when it is unset)
import { metricsResponse } from "@/lib/http/metrics-endpoint";

export const dynamic = "force-dynamic";

export function GET(request: Request): Promise<Response> {
  return metricsResponse(request);
}
