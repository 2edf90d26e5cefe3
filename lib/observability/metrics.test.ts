import { afterEach, describe, expect, it } from "vitest";
import type { BillingProvider } from "@/lib/billing/provider";
import { ProviderUnavailableError } from "@/lib/billing/provider";
import { tokenMatches } from "./endpoint";
import { observeRequest, routeTemplate } from "./http";
import { createLogger, replaceLogger } from "./log";
import { metrics } from "./metrics";
import { instrumentProvider, noteProviderRequestId } from "./provider-calls";
import { setRequestCaller } from "./context";

function captureLog() {
  const lines: string[] = [];
  replaceLogger(createLogger({ level: "info", destination: { write: (line: string) => void lines.push(line) } }));
  return () => lines.map((line) => JSON.parse(line) as Record<string, unknown>);
}

afterEach(() => replaceLogger(createLogger({ level: "silent" })));

/** One sample of the registry, by its name as scraped (a histogram's `_count`, `_bucket`…) and labels. */
async function sampleValue(name: string, labels: Record<string, string>): Promise<number> {
  const metric = await metrics().registry.getSingleMetric(name.replace(/_(count|bucket|sum)$/, ""))?.get();
  const sample = metric?.values.find((value) =>
    ((value as { metricName?: string }).metricName ?? metric.name) === name &&
    Object.entries(labels).every(([key, expected]) => String((value.labels as Record<string, unknown>)[key]) === expected),
  );
  return sample?.value ?? 0;
}

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
    expect(await sampleValue("points_http_request_duration_seconds_bucket", { ...labels, le: "+Inf" })).toBe(before + 1);
  });
});

describe("a provider call", () => {
  const stub = {
    name: "stripe",
    callBudgetMs: 1000,
    async charge() {
      noteProviderRequestId("req_stripe_1");
      return { status: "succeeded", paymentId: "pi_1" };
    },
    async getPrices() {
      throw new ProviderUnavailableError();
    },
  } as unknown as BillingProvider;

  it("is timed and logged with its operation, outcome and the provider's request id; failures are counted", async () => {
    const lines = captureLog();
    const provider = instrumentProvider(stub);
    expect(provider.callBudgetMs).toBe(1000);
    const okBefore = await sampleValue("points_provider_call_duration_seconds_count", { operation: "charge", outcome: "ok" });
    const errorsBefore = await sampleValue("points_provider_call_errors_total", { operation: "getPrices", kind: "unavailable" });
    await provider.charge({} as never);
    await expect(provider.getPrices()).rejects.toThrow(ProviderUnavailableError);
    expect(await sampleValue("points_provider_call_duration_seconds_count", { operation: "charge", outcome: "ok" })).toBe(okBefore + 1);
    expect(await sampleValue("points_provider_call_errors_total", { operation: "getPrices", kind: "unavailable" })).toBe(errorsBefore + 1);
    const calls = lines().filter((line) => line.event === "provider_call");
    expect(calls).toEqual([
      expect.objectContaining({ operation: "charge", outcome: "ok", provider_request_id: "req_stripe_1", payment_status: "succeeded", payment_id: "pi_1" }),
      expect.objectContaining({ operation: "getPrices", outcome: "error", error_kind: "unavailable", level: "warn" }),
    ]);
  });
});

describe("the metrics token", () => {
  it("matches only `Bearer <token>` with exactly the token", () => {
    expect(tokenMatches("Bearer s3cret-token", "s3cret-token")).toBe(true);
    expect(tokenMatches("bearer s3cret-token", "s3cret-token")).toBe(true);
    expect(tokenMatches("Bearer s3cret-toke", "s3cret-token")).toBe(false);
    expect(tokenMatches("s3cret-token", "s3cret-token")).toBe(false);
    expect(tokenMatches(null, "s3cret-token")).toBe(false);
    expect(tokenMatches("Bearer ", "")).toBe(false);
  });
});
