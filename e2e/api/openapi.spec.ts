import { validate } from "@readme/openapi-parser";
import { openApiDocument } from "@/lib/openapi/document";
import { expect, test } from "../fixtures";

test.describe("GET /v3/openapi.json", () => {
  test("serves, without a key, the document the schemas generate, and it validates", async ({ request }) => {
    const response = await request.get("/v3/openapi.json");
    expect(response.status()).toBe(200);
    expect(response.headers()["content-type"]).toMatch(/^application\/json/);
    const served = await response.json();
    expect(served).toEqual(JSON.parse(JSON.stringify(openApiDocument())));
    const result = await validate(served);
    expect(result.valid ? [] : result.errors).toEqual([]);
  });

  test("describes every endpoint an integrator calls, with its error codes", async ({ request }) => {
    const served = await (await request.get("/v3/openapi.json")).json();
    expect(Object.keys(served.paths).sort()).toEqual([
      "/v3/openapi.json",
      "/v3/points/balance",
      "/v3/points/payment-methods",
      "/v3/points/quotes",
      "/v3/points/top-ups",
      "/v3/points/top-ups/{id}",
    ]);
    const purchase = served.paths["/v3/points/top-ups"].post;
    expect(Object.keys(purchase.responses).sort()).toEqual(["200", "201", "402", "403", "404", "409", "413", "422", "429", "502"]);
    expect(Object.keys(purchase.responses["429"].content["application/json"].examples).sort()).toEqual([
      "daily_limit_reached",
      "frequency_limit_reached",
      "key_daily_limit_reached",
    ]);
  });
});
