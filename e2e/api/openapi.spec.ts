import { validate } from "@readme/openapi-parser";
import { openApiDocument } from "@/lib/openapi/document";
import { expect, test } from "../fixtures";
import { expectPlainError } from "../utils";

const OPENAPI = "/v3/openapi.json";

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
      "/v3/points/events",
      "/v3/points/payment-methods",
      "/v3/points/quotes",
      "/v3/points/spends",
      "/v3/points/top-ups",
      "/v3/points/top-ups/{id}",
    ]);
    const purchase = served.paths["/v3/points/top-ups"].post;
    expect(Object.keys(purchase.responses).sort()).toEqual([
      "200",
      "201",
      "402",
      "403",
      "404",
      "409",
      "413",
      "422",
      "429",
      "502",
    ]);
    expect(Object.keys(purchase.responses["429"].content["application/json"].examples).sort()).toEqual([
      "daily_limit_reached",
      "frequency_limit_reached",
      "key_daily_limit_reached",
    ]);
    const spend = served.paths["/v3/points/spends"].post;
    expect(Object.keys(spend.responses).sort()).toEqual(["200", "201", "403", "404", "409", "413", "422", "502"]);
    expect(Object.keys(spend.responses["409"].content["application/json"].examples).sort()).toEqual([
      "insufficient_points",
      "reference_conflict",
    ]);
  });
});

test.describe(`every method on ${OPENAPI}: the document, or the envelope with X-Request-Id`, () => {
  test("GET and HEAD answer the document with X-Request-Id", async ({ request }) => {
    const got = await request.get(OPENAPI, { headers: { "X-Request-Id": "doc-get" } });
    expect(got.status()).toBe(200);
    expect(got.headers()["x-request-id"]).toBe("doc-get");
    expect(got.headers()["content-type"]).toMatch(/^application\/json\b/);
    expect(got.headers()["access-control-allow-origin"]).toBe("*");
    expect((await got.json()).openapi).toBe("3.1.0");
    const head = await request.head(OPENAPI, { headers: { "X-Request-Id": "doc-head" } });
    expect(head.status()).toBe(200);
    expect(head.headers()["x-request-id"]).toBe("doc-head");
    expect(await head.text()).toBe("");
    const fresh = await request.get(OPENAPI);
    expect(fresh.headers()["x-request-id"]).toMatch(/^[A-Za-z0-9._:-]{1,100}$/);
    expect(fresh.headers()["x-request-id"]).not.toBe((await request.get(OPENAPI)).headers()["x-request-id"]);
  });

  for (const method of ["POST", "PUT", "PATCH", "DELETE"]) {
    test(`${method} is a JSON 405 method_not_allowed with Allow`, async ({ request }) => {
      const response = await request.fetch(OPENAPI, {
        method,
        headers: { "X-Request-Id": `doc-${method}` },
        data: method === "DELETE" ? undefined : { x: 1 },
      });
      const error = await expectPlainError(response, 405, "method_not_allowed");
      expect(error.message).toContain("GET /v3/openapi.json");
      expect(response.headers().allow).toBe("GET, OPTIONS");
      expect(response.headers()["x-request-id"]).toBe(`doc-${method}`);
    });
  }

  test("OPTIONS answers in the envelope with its methods", async ({ request }) => {
    const response = await request.fetch(OPENAPI, { method: "OPTIONS", headers: { "X-Request-Id": "doc-options" } });
    expect(response.status()).toBe(200);
    expect(response.headers()["content-type"]).toMatch(/^application\/json\b/);
    expect(response.headers()["x-request-id"]).toBe("doc-options");
    expect(response.headers().allow).toBe("GET, OPTIONS");
    expect(await response.json()).toEqual({ status: "success", data: { methods: ["GET", "OPTIONS"] } });
  });
});
