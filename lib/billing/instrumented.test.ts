import { afterEach, describe, expect, it } from "vitest";
import type { BillingProvider } from "@/lib/billing/provider";
import { ProviderUnavailableError } from "@/lib/billing/provider";
import { captureLog, quietLogger, sampleValue } from "@/lib/testing/observability";
import { instrumentProvider, noteProviderRequestId } from "./instrumented";

afterEach(quietLogger);

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
    const okBefore = await sampleValue("points_provider_call_duration_seconds_count", {
      operation: "charge",
      outcome: "ok",
    });
    const errorsBefore = await sampleValue("points_provider_call_errors_total", {
      operation: "getPrices",
      kind: "unavailable",
    });
    await provider.charge({} as never);
    await expect(provider.getPrices()).rejects.toThrow(ProviderUnavailableError);
    expect(
      await sampleValue("points_provider_call_duration_seconds_count", { operation: "charge", outcome: "ok" }),
    ).toBe(okBefore + 1);
    expect(
      await sampleValue("points_provider_call_errors_total", { operation: "getPrices", kind: "unavailable" }),
    ).toBe(errorsBefore + 1);
    const calls = lines().filter((line) => line.event === "provider_call");
    expect(calls).toEqual([
      expect.objectContaining({
        operation: "charge",
        outcome: "ok",
        provider_request_id: "req_stripe_1",
        payment_status: "succeeded",
        payment_id: "pi_1",
      }),
      expect.objectContaining({ operation: "getPrices", outcome: "error", error_kind: "unavailable", level: "warn" }),
    ]);
  });
});
