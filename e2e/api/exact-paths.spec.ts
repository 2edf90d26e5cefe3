import http from "node:http";
import { checkAgainstDocument } from "@/lib/testing/openapi-check";
import { expect, test } from "../fixtures";
import { bearer, expectSuccess, TOP_UPS, uniqueRef } from "../utils";

/*
 * Every answer under /v3 is the JSON envelope with X-Request-Id (docs/contract.md §1), including
 * for paths that are not written exactly, which Next.js would redirect (308), resolve elsewhere or
 * fail on before the app's code runs (scripts/api-paths.mjs). Raw HTTP, so that no client tidies
 * the path before it is sent. Every method on /v3/openapi.json: e2e/api/openapi.spec.ts.
 */

interface RawAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

const OPENAPI = "/v3/openapi.json";

/** One request with exactly this request-target, as a client that does not normalise paths sends it. */
function raw(
  baseUrl: string,
  method: string,
  target: string,
  options: { headers?: Record<string, string>; body?: string } = {},
): Promise<RawAnswer> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const request = http.request(
      {
        host: hostname,
        port,
        method,
        path: target,
        headers: { ...options.headers, ...(options.body ? { "Content-Type": "application/json" } : {}) },
      },
      (response) => {
        let text = "";
        response.on("data", (chunk: Buffer) => {
          text += chunk.toString("utf8");
        });
        response.on("end", () => resolve({ status: response.statusCode ?? 0, headers: response.headers, text }));
      },
    );
    request.on("error", reject);
    request.end(options.body);
  });
}

/** A JSON 404 not_found in the envelope, echoing X-Request-Id, redirecting nowhere, as the document describes. */
function expectNotFound(answer: RawAnswer, method: string, requestId: string): void {
  const where = `${method} → ${answer.status} ${JSON.stringify(answer.headers)} ${answer.text.slice(0, 300)}`;
  expect(answer.status, where).toBe(404);
  expect(answer.headers["x-request-id"], where).toBe(requestId);
  expect(answer.headers.location, where).toBeUndefined();
  expect(answer.headers["content-type"], where).toMatch(/^application\/json\b/);
  if (method === "HEAD") {
    expect(answer.text).toBe("");
    return;
  }
  const body = JSON.parse(answer.text);
  expect(body).toEqual({ status: "error", error: { code: "not_found", message: expect.any(String), details: {} } });
  expect(body.error.message).toContain("exact");
  expect(
    checkAgainstDocument({
      method,
      path: "/v3/inexact-path",
      status: answer.status,
      headers: answer.headers as Record<string, string>,
      body: answer.text,
    }),
  ).toEqual([]);
}

const inexact: { name: string; targets: string[] }[] = [
  {
    name: "a trailing slash",
    targets: [
      "/v3/",
      "/v3/points/",
      `${TOP_UPS}/`,
      `${TOP_UPS}/?limit=1`,
      `${TOP_UPS}/tu_abc/`,
      "/v3/points/payment-methods/",
      "/v3/points/balance/",
      "/v3/points/quotes/",
      "/v3/points/events/",
      `${OPENAPI}/`,
    ],
  },
  {
    name: "a repeated slash",
    targets: [
      "/v3//points/top-ups",
      "/v3/points//top-ups",
      `${TOP_UPS}//`,
      "//v3/points/top-ups",
      "///v3/points/top-ups",
      "/v3//openapi.json",
    ],
  },
  {
    name: "a dot segment",
    targets: [
      `${TOP_UPS}/..`,
      "/v3/points/../points/top-ups",
      "/v3/points/./top-ups",
      `${TOP_UPS}/%2e%2e`,
      "/v3/points/%2e%2e/top-ups",
      "/v3/%2e%2e/points/top-ups",
      "/v3/%2e%2e",
      "/v3/%2e%2e/dashboard",
      "/v3/points/%2E%2E/%2E%2E/dashboard",
      `${TOP_UPS}/.%2e`,
      `${TOP_UPS}/%2E.`,
      `${TOP_UPS}/%2e`,
      `${OPENAPI}/.`,
      "/%2e%2e/v3/points/top-ups",
      "/x/../v3/points/top-ups",
    ],
  },
  {
    name: "an encoded slash, backslash or letter that only decoding puts under /v3",
    targets: [
      "/v3%2fpoints%2ftop-ups",
      "/v3%5Cpoints%5Ctop-ups",
      "/%76%33/points/top-ups",
      "/v3\\points\\top-ups",
      `${TOP_UPS}\\`,
    ],
  },
  {
    name: "percent-encoding that does not decode",
    targets: ["/v3/%", `${TOP_UPS}/%zz`, "/v3/%E0%A4%A"],
  },
];

test.describe("a path under /v3 that is not written exactly: 404 not_found in the envelope, never a redirect", () => {
  for (const group of inexact) {
    test(`${group.name}`, async ({ fx }) => {
      for (const [index, target] of group.targets.entries()) {
        const requestId = `inexact-${index}`;
        expectNotFound(
          await raw(fx.baseUrl, "GET", target, {
            headers: { "X-Request-Id": requestId, ...bearer(fx.organizations.main) },
          }),
          "GET",
          requestId,
        );
      }
    });
  }

  test("every method, HEAD and OPTIONS included, on a trailing slash and a double slash", async ({ fx }) => {
    for (const target of [`${TOP_UPS}/`, "/v3//points/top-ups", `${OPENAPI}/`, `${TOP_UPS}/%2e%2e`]) {
      for (const method of ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]) {
        const requestId = `m-${method}`;
        const answer = await raw(fx.baseUrl, method, target, { headers: { "X-Request-Id": requestId } });
        expectNotFound(answer, method, requestId);
      }
    }
  });

  test("a malformed X-Request-Id is replaced there too", async ({ fx }) => {
    const answer = await raw(fx.baseUrl, "GET", `${TOP_UPS}/`, {
      headers: { "X-Request-Id": "has spaces/and<slashes>" },
    });
    expect(answer.status).toBe(404);
    expect(answer.headers["x-request-id"]).toMatch(/^[A-Za-z0-9._:-]{1,100}$/);
  });

  test("a purchase sent to an inexact path buys nothing", async ({ request, fx }) => {
    const org = fx.organizations.main;
    const reference = uniqueRef("inexact");
    for (const target of [
      `${TOP_UPS}/`,
      "/v3//points/top-ups",
      `/v3/points/x/..${TOP_UPS.slice("/v3/points".length)}`,
    ]) {
      const answer = await raw(fx.baseUrl, "POST", target, {
        headers: { ...bearer(org), "X-Request-Id": "inexact-post" },
        body: JSON.stringify({ points: 100, reference }),
      });
      expectNotFound(answer, "POST", "inexact-post");
    }
    const listed = await expectSuccess(
      await request.get(`${TOP_UPS}?reference=${reference}`, { headers: bearer(org) }),
      200,
    );
    expect(listed.top_ups).toEqual([]);
  });

  test("an absolute-form target is read by its path: exact answers as usual, inexact is a 404", async ({ fx }) => {
    const origin = fx.baseUrl;
    const exact = await raw(fx.baseUrl, "GET", `${origin}${TOP_UPS}?limit=1`, {
      headers: { "X-Request-Id": "abs-1", ...bearer(fx.organizations.main) },
    });
    expect(exact.status, exact.text).toBe(200);
    expect(JSON.parse(exact.text)).toMatchObject({ status: "success", data: { has_more: expect.any(Boolean) } });
    expect(exact.headers["x-request-id"]).toBe("abs-1");
    expectNotFound(
      await raw(fx.baseUrl, "GET", `${origin}/v3//points/top-ups`, { headers: { "X-Request-Id": "abs-2" } }),
      "GET",
      "abs-2",
    );
  });

  test("exact paths answer as before, percent-encoding and all", async ({ fx }) => {
    const get = (target: string) => raw(fx.baseUrl, "GET", target, { headers: { "X-Request-Id": "exact-1" } });
    for (const target of [
      TOP_UPS,
      `${TOP_UPS}?limit=1`,
      `${TOP_UPS}/tu_x`,
      `${TOP_UPS}/%2F`,
      "/v3/points/payment-methods",
    ]) {
      const answer = await get(target);
      expect(answer.status, target).toBe(403);
      expect(JSON.parse(answer.text)).toMatchObject({ status: "error", error: { code: "invalid_api_key" } });
      expect(answer.headers["x-request-id"]).toBe("exact-1");
    }
    for (const target of ["/v3", "/v3/points", `${TOP_UPS}%2F`, `${TOP_UPS}%2e%2e`, `${TOP_UPS}%5C`]) {
      const answer = await get(target);
      expect(answer.status, target).toBe(404);
      expect(JSON.parse(answer.text)).toMatchObject({ status: "error", error: { code: "not_found" } });
      expect(JSON.parse(answer.text).error.message).not.toContain("exact");
    }
  });

  test("a React Server Component request header changes nothing under /v3", async ({ fx }) => {
    const answer = await raw(fx.baseUrl, "GET", TOP_UPS, {
      headers: { RSC: "1", "Next-Router-Prefetch": "1", "X-Request-Id": "rsc-1" },
    });
    expect(answer.status).toBe(403);
    expect(answer.headers["x-request-id"]).toBe("rsc-1");
    expect(JSON.parse(answer.text)).toMatchObject({ status: "error", error: { code: "invalid_api_key" } });
  });

  test("paths outside /v3 keep Next's behaviour: trailing slashes and old links still redirect", async ({ fx }) => {
    const get = (target: string) => raw(fx.baseUrl, "GET", target);
    expect(await get("/dashboard/")).toMatchObject({ status: 308, headers: { location: "/dashboard" } });
    expect(await get("/docs/")).toMatchObject({ status: 308, headers: { location: "/docs" } });
    expect(await get("/docs//guide")).toMatchObject({ status: 308, headers: { location: "/docs/guide" } });
    expect(await get("/docs/api")).toMatchObject({ status: 308, headers: { location: "/docs/guide" } });
    expect((await get("/dashboard")).status).toBe(307);
    expect((await get("/docs/guide")).status).toBe(200);
  });
});
