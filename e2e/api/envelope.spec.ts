import type { APIRequestContext, APIResponse } from "@playwright/test";
import type { E2eFixtures } from "../fixtures";
import { expect, test } from "../fixtures";
import {
  bearer,
  expectPlainError,
  expectSuccess,
  MAX_BODY_BYTES,
  PAYMENT_METHODS,
  postRaw,
  postTopUp,
  readEnvelope,
  TOP_UPS,
  uniqueRef,
} from "../utils";

/** One request of each kind of answer: success, auth error, validation error, 413, 404, 405. */
const kinds: {
  name: string;
  send: (request: APIRequestContext, fx: E2eFixtures, headers: Record<string, string>) => Promise<APIResponse>;
}[] = [
  {
    name: "a 200 listing",
    send: (request, fx, headers) =>
      request.get(PAYMENT_METHODS, { headers: { ...bearer(fx.organizations.main), ...headers } }),
  },
  {
    name: "a 201 purchase",
    send: (request, fx, headers) =>
      postTopUp(request, fx.organizations.main, { points: 100, reference: uniqueRef("rid") }, headers),
  },
  {
    name: "a 403",
    send: (request, _fx, headers) => request.post(TOP_UPS, { headers, data: { points: 100, reference: "x" } }),
  },
  { name: "a 422", send: (request, fx, headers) => postTopUp(request, fx.organizations.main, { points: 3 }, headers) },
  {
    name: "a 413",
    send: (request, fx, headers) =>
      postRaw(request, { ...bearer(fx.organizations.main), ...headers }, "x".repeat(MAX_BODY_BYTES + 1)),
  },
  { name: "a 404", send: (request, _fx, headers) => request.get("/v3/points/nothing-here", { headers }) },
  { name: "a 405", send: (request, _fx, headers) => request.delete(TOP_UPS, { headers }) },
];

test.describe("X-Request-Id", () => {
  for (const kind of kinds) {
    test(`${kind.name} echoes a well-formed X-Request-Id`, async ({ request, fx }) => {
      const id = `e2e.${kind.name.replace(/\W/g, "")}:A_b-9`;
      const response = await kind.send(request, fx, { "X-Request-Id": id });
      await readEnvelope(response);
      expect(response.headers()["x-request-id"]).toBe(id);
    });

    test(`${kind.name} replaces a malformed X-Request-Id with a well-formed one`, async ({ request, fx }) => {
      const bad = "has spaces/and<slashes>";
      const response = await kind.send(request, fx, { "X-Request-Id": bad });
      await readEnvelope(response);
      expect(response.headers()["x-request-id"]).not.toBe(bad);
    });

    test(`${kind.name} without an X-Request-Id still gets one`, async ({ request, fx }) => {
      const response = await kind.send(request, fx, {});
      await readEnvelope(response);
      expect(response.headers()["x-request-id"]).toMatch(/^[A-Za-z0-9._:-]{1,100}$/);
    });
  }

  test("an X-Request-Id of exactly 100 allowed characters is echoed, 101 is replaced", async ({ request, fx }) => {
    const hundred = `${"a".repeat(96)}._:-`;
    const echoed = await request.get(PAYMENT_METHODS, {
      headers: { ...bearer(fx.organizations.main), "X-Request-Id": hundred },
    });
    await expectSuccess(echoed, 200);
    expect(echoed.headers()["x-request-id"]).toBe(hundred);

    const tooLong = `${hundred}b`;
    const replaced = await request.get(PAYMENT_METHODS, {
      headers: { ...bearer(fx.organizations.main), "X-Request-Id": tooLong },
    });
    await expectSuccess(replaced, 200);
    expect(replaced.headers()["x-request-id"]).not.toBe(tooLong);
    expect(replaced.headers()["x-request-id"]).toMatch(/^[A-Za-z0-9._:-]{1,100}$/);
  });

  test("an empty X-Request-Id is replaced", async ({ request, fx }) => {
    const response = await request.get(PAYMENT_METHODS, {
      headers: { ...bearer(fx.organizations.main), "X-Request-Id": "" },
    });
    await expectSuccess(response, 200);
    expect(response.headers()["x-request-id"]).toMatch(/^[A-Za-z0-9._:-]{1,100}$/);
  });

  test("two requests without an X-Request-Id get different ones", async ({ request }) => {
    const first = await request.get(PAYMENT_METHODS);
    const second = await request.get(PAYMENT_METHODS);
    await expectPlainError(first, 403, "invalid_api_key");
    await expectPlainError(second, 403, "invalid_api_key");
    expect(first.headers()["x-request-id"]).not.toBe(second.headers()["x-request-id"]);
  });
});

test.describe("unknown paths and methods answer JSON", () => {
  for (const path of [
    "/v3",
    "/v3/points",
    "/v3/points/top-up",
    "/v3/points/top-ups/tu_x/extra",
    "/v3/points/payment-methods/pm_1",
    "/v3/other",
    "/v3/points/TOP-UPS",
  ]) {
    for (const method of ["GET", "POST"] as const) {
      test(`${method} ${path} is a JSON 404 not_found`, async ({ request, fx }) => {
        const response = await request.fetch(path, {
          method,
          headers: bearer(fx.organizations.main),
          data: method === "POST" ? { points: 100, reference: uniqueRef("nf") } : undefined,
        });
        await expectPlainError(response, 404, "not_found");
      });
    }
  }

  for (const method of ["PUT", "PATCH", "DELETE"]) {
    test(`${method} ${TOP_UPS} is a JSON 405 method_not_allowed`, async ({ request, fx }) => {
      const response = await request.fetch(TOP_UPS, { method, headers: bearer(fx.organizations.main) });
      await expectPlainError(response, 405, "method_not_allowed");
      expect(response.headers().allow).toBe("GET, POST, OPTIONS");
    });
  }

  for (const method of ["POST", "PUT", "PATCH", "DELETE"]) {
    test(`${method} ${PAYMENT_METHODS} is a JSON 405 method_not_allowed`, async ({ request, fx }) => {
      const response = await request.fetch(PAYMENT_METHODS, {
        method,
        headers: bearer(fx.organizations.main),
        data: { points: 100 },
      });
      await expectPlainError(response, 405, "method_not_allowed");
      expect(response.headers().allow).toBe("GET, OPTIONS");
    });
  }

  for (const [path, allowed] of [
    [TOP_UPS, ["GET", "POST", "OPTIONS"]],
    [PAYMENT_METHODS, ["GET", "OPTIONS"]],
  ] as const) {
    test(`OPTIONS ${path} answers in the JSON envelope with its methods`, async ({ request }) => {
      const response = await request.fetch(path, { method: "OPTIONS", headers: { "X-Request-Id": "opt-1" } });
      expect(response.status()).toBe(200);
      expect(response.headers()["content-type"]).toContain("application/json");
      expect(response.headers()["x-request-id"]).toBe("opt-1");
      expect(await response.json()).toEqual({ status: "success", data: { methods: [...allowed] } });
    });
  }
});
