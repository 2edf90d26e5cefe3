import { afterEach, describe, expect, it } from "vitest";
import { setRequestCaller } from "@/lib/observability/context";
import { captureLog, quietLogger, sampleValue } from "@/lib/testing/observability";
import { observeRequest, routeTemplate } from "./observe";

afterEach(quietLogger);

describe("routes in logs and metrics", () => {
  it("are templates, never paths with ids", () => {
    expect(routeTemplate("/v3/points/top-ups")).toBe("/v3/points/top-ups");
    expect(routeTemplate("/v3/points/top-ups/tu_abc123")).toBe("/v3/points/top-ups/{id}");
    expect(routeTemplate("/v3/points/payment-methods")).toBe("/v3/points/payment-methods");
    expect(routeTemplate("/v3/points/top-ups/tu_1/refunds")).toBe("/v3/{unmatched}");
    expect(routeTemplate("/v3/anything/tu_secret")).toBe("/v3/{unmatched}");
  });
});

describe("a request", () => {
  it("is one log line with its id, method, route, status, duration, organisation and key, and one latency sample", async () => {
    const lines = captureLog();
    const labels = { method: "GET", route: "/v3/points/top-ups/{id}", status: "404" };
    const before = await sampleValue("points_http_request_duration_seconds_bucket", { ...labels, le: "+Inf" });
    const response = await observeRequest(new Request("http://x/v3/points/top-ups/tu_9"), "req_test", async () => {
      setRequestCaller({ organizationId: "org_9", apiKeyId: "key_9" });
      return new Response(null, { status: 404 });
    });
    expect(response.status).toBe(404);
    const requestLines = lines().filter((line) => line.event === "request");
    expect(requestLines).toHaveLength(1);
    expect(requestLines[0]).toMatchObject({
      request_id: "req_test",
      method: "GET",
      route: "/v3/points/top-ups/{id}",
      status: 404,
      organization_id: "org_9",
      api_key_id: "key_9",
    });
    expect(requestLines[0]?.duration_ms).toEqual(expect.any(Number));
    expect(await sampleValue("points_http_request_duration_seconds_bucket", { ...labels, le: "+Inf" })).toBe(
      before + 1,
    );
  });
});
