import { describe, expect, it } from "vitest";
import { deploymentUrl } from "./deployment-url";

describe("deploymentUrl", () => {
  it("builds this deployment's URL from the Host, and from a proxy's headers only when the operator trusts it", () => {
    const from = (headers: Record<string, string>) => deploymentUrl((name) => headers[name] ?? null);
    const saved = process.env.POINTS_OPERATOR_TRUSTS_PROXY;
    try {
      process.env.POINTS_OPERATOR_TRUSTS_PROXY = "0";
      expect(from({ host: "127.0.0.1:3100" })).toBe("http://127.0.0.1:3100");
      expect(from({ host: "points.example.com" })).toBe("https://points.example.com");
      // A client's own X-Forwarded-Host must not choose the URL shown to the admin.
      expect(from({ host: "127.0.0.1:3100", "x-forwarded-host": "evil.example", "x-forwarded-proto": "https" })).toBe(
        "http://127.0.0.1:3100",
      );
      expect(from({ host: "evil.com'; rm -rf ~ #" })).toBe("http://localhost:3000");
      process.env.POINTS_OPERATOR_TRUSTS_PROXY = "1";
      expect(from({ host: "internal:3000", "x-forwarded-host": "api.acme.com", "x-forwarded-proto": "https" })).toBe(
        "https://api.acme.com",
      );
    } finally {
      if (saved === undefined) delete process.env.POINTS_OPERATOR_TRUSTS_PROXY;
      else process.env.POINTS_OPERATOR_TRUSTS_PROXY = saved;
    }
  });
});
