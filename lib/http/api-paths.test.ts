import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiRequestTarget } from "@/scripts/api-paths.mjs";
import { isInexactPath, noSuchEndpoint } from "./paths";

const INEXACT = { url: "/v3/inexact-path", exact: false };

describe("which request targets under /v3 are exact (scripts/api-paths.mjs)", () => {
  it.each([
    "/v3",
    "/v3/points/top-ups",
    "/v3/points/top-ups?limit=2&created[gte]=2026-11-22T12:00Z",
    "/v3/points/top-ups/tu_abc",
    "/v3/openapi.json",
    "/v3/points/nothing-here",
    // Not structure: an encoded slash or backslash inside a segment, a dot inside a name, an encoded letter.
    "/v3/points/top-ups%2F",
    "/v3/points/top-ups/tu%2Fx",
    "/v3/points/top-ups%5C",
    "/v3/points/top%2Dups",
    "/v3/points/top-ups/...",
    "/v3/points/top-ups/.x",
    "/v3/points/top-ups?next=/a//b/../c/",
  ])("%s is exact and left as it is", (target) => {
    expect(apiRequestTarget(target)).toEqual({ url: target, exact: true });
  });

  it.each([
    // A trailing slash.
    "/v3/",
    "/v3/points/top-ups/",
    "/v3/points/top-ups/?limit=1",
    "/v3/openapi.json/",
    "/v3/points/top-ups/tu_abc/",
    // A repeated slash or a backslash.
    "/v3//points/top-ups",
    "/v3/points//top-ups",
    "/v3/points/top-ups//",
    "/v3\\points\\top-ups",
    "/v3/points/top-ups\\",
    // Dot segments, plain and percent-encoded in any case.
    "/v3/points/../points/top-ups",
    "/v3/points/./top-ups",
    "/v3/points/top-ups/%2e%2e",
    "/v3/points/top-ups/%2E%2E",
    "/v3/points/top-ups/.%2e",
    "/v3/points/top-ups/%2E.",
    "/v3/points/top-ups/%2e",
    "/v3/%2e%2e/points/top-ups",
    "/v3/%2e%2e",
    "/v3/%2e%2e/dashboard",
    // Percent-encoding that does not decode.
    "/v3/%",
    "/v3/points/top-ups/%zz",
    "/v3/%E0%A4%A",
  ])("%s is inexact", (target) => {
    expect(apiRequestTarget(target)).toEqual(INEXACT);
  });

  it.each([
    "//v3/points/top-ups",
    "/%2e%2e/v3/points/top-ups",
    "/x/../v3/points/top-ups",
    "/docs/%2E%2E/v3",
    "/%76%33/points/top-ups",
    "/v3%2fpoints%2ftop-ups",
    "/v3%5Cpoints",
    "\\v3\\points",
  ])("%s is not written under /v3 but reads as a path there: inexact", (target) => {
    expect(apiRequestTarget(target)).toEqual(INEXACT);
  });

  it.each([
    "/",
    "/dashboard",
    "/dashboard/",
    "/docs//guide",
    "/docs/api/../guide",
    "/v3x",
    "/v3.json",
    "/V3/points/top-ups",
    "/api/auth/csrf",
    "/_next/static/chunks/app.js",
    "/x/%",
    "*",
  ])("%s is not about /v3: left to Next.js", (target) => {
    expect(apiRequestTarget(target)).toBeNull();
  });

  it("an absolute-form target is read by its path: origin-form when exact", () => {
    expect(apiRequestTarget("http://127.0.0.1:3000/v3/points/top-ups?limit=1")).toEqual({
      url: "/v3/points/top-ups?limit=1",
      exact: true,
    });
    expect(apiRequestTarget("https://points.example/v3//points/top-ups")).toEqual(INEXACT);
    expect(apiRequestTarget("http://points.example/v3/points/top-ups/")).toEqual(INEXACT);
    expect(apiRequestTarget("http://points.example/dashboard")).toBeNull();
  });
});

describe("an HTTP server made after scripts/api-paths.mjs is imported", () => {
  let server: http.Server;
  let port: number;
  const header = () => process.env.POINTS_INEXACT_PATH_HEADER ?? "";

  beforeAll(async () => {
    await import("@/scripts/api-paths.mjs");
    // What the app's route sees of each request: its url and headers, after the hook ran.
    server = http.createServer((request, response) => {
      response.setHeader("Content-Type", "application/json");
      response.end(JSON.stringify({ url: request.url, headers: request.headers, raw: request.rawHeaders }));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as AddressInfo).port;
  });

  afterAll(async () => {
    await new Promise((resolve) => server?.close(resolve));
  });

  /** One request with this exact target (no client-side normalisation), and what the handler saw. */
  function seen(
    target: string,
    headers: Record<string, string> = {},
  ): Promise<{ url: string; headers: Record<string, string>; raw: string[] }> {
    return new Promise((resolve, reject) => {
      const request = http.request({ host: "127.0.0.1", port, path: target, headers }, (response) => {
        let body = "";
        response.on("data", (chunk: Buffer) => {
          body += chunk.toString("utf8");
        });
        response.on("end", () => resolve(JSON.parse(body)));
      });
      request.on("error", reject);
      request.end();
    });
  }

  it("names its stamp in the environment", () => {
    expect(header()).toBe("x-points-inexact-path");
  });

  it("sends an inexact path to the catch-all, stamped", async () => {
    const answer = await seen("/v3//points/top-ups/?limit=1");
    expect(answer.url).toBe("/v3/inexact-path");
    expect(answer.headers[header()]).toBe("1");
  });

  it("leaves an exact path alone, and removes a stamp the client sent, whatever its path", async () => {
    for (const target of ["/v3/points/top-ups?limit=1", "/dashboard/", "/docs"]) {
      const answer = await seen(target, { "X-Points-Inexact-Path": "1", "X-Other": "kept" });
      expect(answer.url).toBe(target);
      expect(answer.headers[header()]).toBeUndefined();
      expect(answer.raw.map((name) => name.toLowerCase())).not.toContain(header());
      expect(answer.headers["x-other"]).toBe("kept");
    }
  });

  it("removes Next's React Server Component headers from /v3 requests only", async () => {
    const rsc = { RSC: "1", "Next-Router-Prefetch": "1", "Next-Router-State-Tree": "%5B%5D", "Next-Url": "/x" };
    const api = await seen("/v3/points/top-ups", rsc);
    for (const name of ["rsc", "next-router-prefetch", "next-router-state-tree", "next-url"]) {
      expect(api.headers[name]).toBeUndefined();
      expect(api.raw.map((raw) => raw.toLowerCase())).not.toContain(name);
    }
    const page = await seen("/dashboard", rsc);
    expect(page.headers.rsc).toBe("1");
  });
});

describe("the /v3 catch-all's 404", () => {
  it("says why an inexact path has no endpoint, only when the hook stamped it", () => {
    const stamped = new Request("http://localhost/v3/inexact-path", { headers: { "x-points-inexact-path": "1" } });
    const plain = new Request("http://localhost/v3/nothing");
    const previous = process.env.POINTS_INEXACT_PATH_HEADER;
    try {
      process.env.POINTS_INEXACT_PATH_HEADER = "x-points-inexact-path";
      expect(isInexactPath(stamped)).toBe(true);
      expect(isInexactPath(plain)).toBe(false);
      expect(noSuchEndpoint(stamped)).toMatchObject({
        code: "not_found",
        status: 404,
        message: expect.stringContaining("exact"),
      });
      expect(noSuchEndpoint(plain)).toMatchObject({
        code: "not_found",
        status: 404,
        message: expect.stringContaining("no such endpoint"),
      });
      delete process.env.POINTS_INEXACT_PATH_HEADER;
      expect(isInexactPath(stamped)).toBe(false);
    } finally {
      if (previous === undefined) delete process.env.POINTS_INEXACT_PATH_HEADER;
      else process.env.POINTS_INEXACT_PATH_HEADER = previous;
    }
  });
});
