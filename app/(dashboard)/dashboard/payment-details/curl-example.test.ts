import { describe, expect, it } from "vitest";
import { curlExample } from "./curl-example";

describe("curlExample", () => {
  it("gives each example request a reference of its own", () => {
    const input = { baseUrl: "http://localhost:3000", paymentSourceId: "pm_sim_abc", currency: null };
    const reference = (example: string) => /"reference":"([^"]+)"/.exec(example)?.[1];
    expect(reference(curlExample(input))).toMatch(/^order-[a-z0-9]{10}$/);
    expect(reference(curlExample(input))).not.toBe(reference(curlExample(input)));
  });

  it("the example request carries the method's ID and a placeholder, never a real key", () => {
    const example = curlExample({
      baseUrl: "https://points.example.com",
      paymentSourceId: "pm_sim_abc",
      currency: "GBP",
    });
    expect(example).toContain("https://points.example.com/v3/points/top-ups");
    expect(example).toContain('"payment_source_id":"pm_sim_abc"');
    expect(example).toContain('"currency":"GBP"');
    expect(example).toContain("Authorization: Bearer <YOUR_API_KEY>");
    expect(example).not.toMatch(/pts_[A-Za-z0-9]{40}/);
  });
});
