import fs from "node:fs";
import path from "node:path";
import { validate } from "@readme/openapi-parser";
import { describe, expect, it } from "vitest";
import { API_ROUTES } from "@/lib/http/routes";
import { type ErrorCode, errorStatus } from "@/lib/points/errors";
import { checkAgainstDocument, matchesDocument } from "@/lib/testing/openapi-check";
import { CLIENT_TYPES_FILE, generateClientTypes } from "./client-types";
import { openApiDocument } from "./document";
import { exampleTopUp } from "./examples";

type Json = Record<string, unknown>;
const document = openApiDocument() as unknown as { paths: Record<string, Record<string, Json>>; components: Json };
const V3 = path.join(process.cwd(), "app", "v3");

/** Every route file under app/v3 with the methods it serves itself (not the 405s and OPTIONS). */
function routes(): { path: string; methods: string[] }[] {
  const found: { path: string; methods: string[] }[] = [];
  const walk = (dir: string, segments: string[]) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory()) walk(path.join(dir, entry.name), [...segments, entry.name]);
      else if (entry.name === "route.ts") {
        if (segments.some((segment) => segment.startsWith("[["))) continue; // the catch-all 404
        const source = fs.readFileSync(path.join(dir, entry.name), "utf8");
        const methods = [...source.matchAll(/export (?:async )?function (GET|POST|PUT|PATCH|DELETE)\b/g)].map(
          (match) => match[1]?.toLowerCase() ?? "",
        );
        found.push({
          path: `/v3/${segments.map((segment) => segment.replace(/^\[(.+)\]$/, "{$1}")).join("/")}`,
          methods,
        });
      }
    }
  };
  walk(V3, []);
  return found;
}

function operations(): { path: string; method: string; operation: Json }[] {
  return Object.entries(document.paths).flatMap(([route, item]) =>
    Object.entries(item).map(([method, operation]) => ({ path: route, method, operation })),
  );
}

describe("the OpenAPI document", () => {
  it("is a valid OpenAPI 3.1 document by the standard validator", async () => {
    const result = await validate(structuredClone(openApiDocument()) as never);
    expect(result.valid ? [] : result.errors).toEqual([]);
    expect(result.warnings).toEqual([]);
    expect(openApiDocument().openapi).toBe("3.1.0");
  });

  it("documents every method every route under /v3 serves, and nothing no route serves", () => {
    const served = routes().flatMap((route) => route.methods.map((method) => `${method.toUpperCase()} ${route.path}`));
    const documented = operations().map((operation) => `${operation.method.toUpperCase()} ${operation.path}`);
    expect(served.length).toBeGreaterThanOrEqual(7);
    expect(documented.sort()).toEqual(served.sort());
  });

  it("names the same routes the logs and metrics label requests by", () => {
    expect(Object.keys(document.paths).sort()).toEqual([...API_ROUTES].sort());
  });

  it("gives every operation an id, a summary, a description and an answer for success", () => {
    for (const { path: route, method, operation } of operations()) {
      const where = `${method.toUpperCase()} ${route}`;
      expect(operation.operationId, where).toEqual(expect.any(String));
      expect(operation.summary, where).toEqual(expect.any(String));
      expect(String(operation.description ?? ""), where).toMatch(/\w{3}/);
      expect(
        Object.keys(operation.responses as Json).some((status) => status.startsWith("2")),
        where,
      ).toBe(true);
    }
  });

  it("names every error code in the envelope, and each code an API caller can get in some operation", () => {
    const envelope = (document.components.schemas as Record<string, Json>).Error as Json;
    const codes = (((envelope.properties as Json).error as Json).properties as Record<string, Json>).code?.enum;
    expect([...(codes as string[])].sort()).toEqual(Object.keys(errorStatus).sort());
    const text = JSON.stringify(document.paths);
    // Dashboard-only and operator-only codes, and the transport's answers that no operation documents (405, unknown paths' 404 aside).
    const notPerOperation = new Set<ErrorCode>([
      "unauthorized",
      "forbidden",
      "method_not_allowed",
      "internal_error",
      "billing_provider_mismatch",
    ]);
    for (const code of Object.keys(errorStatus) as ErrorCode[]) {
      if (notPerOperation.has(code)) continue;
      expect(text, code).toContain(`"${code}"`);
    }
  });

  it("files every error under the status the service answers it with", () => {
    for (const { path: route, method, operation } of operations()) {
      for (const [status, response] of Object.entries(operation.responses as Record<string, Json>)) {
        const examples = ((response.content as Record<string, Json> | undefined)?.["application/json"]?.examples ??
          {}) as Record<string, Json>;
        for (const code of Object.keys(examples)) {
          expect(errorStatus[code as ErrorCode], `${method} ${route} ${status} ${code}`).toBe(Number(status));
        }
      }
    }
  });

  it("has examples that match their own schemas", () => {
    let checked = 0;
    for (const { path: route, method, operation } of operations()) {
      const bodies: [string[], Json][] = [];
      const request = (operation.requestBody as Json | undefined)?.content as Record<string, Json> | undefined;
      if (request?.["application/json"])
        bodies.push([
          ["paths", route, method, "requestBody", "content", "application/json"],
          request["application/json"],
        ]);
      for (const [status, response] of Object.entries(operation.responses as Record<string, Json>)) {
        const media = (response.content as Record<string, Json> | undefined)?.["application/json"];
        if (media) bodies.push([["paths", route, method, "responses", status, "content", "application/json"], media]);
      }
      for (const [parts, media] of bodies) {
        const values = [
          media.example,
          ...Object.values((media.examples ?? {}) as Record<string, Json>).map((example) => example.value),
        ];
        for (const value of values.filter((value) => value !== undefined)) {
          expect(matchesDocument([...parts, "schema"], value), parts.join(" ")).toBeNull();
          checked += 1;
        }
      }
    }
    expect(checked).toBeGreaterThan(30);
  });
});

describe("the typed client", () => {
  it("is typed by what the document generates now (run npm run openapi:types after changing it)", async () => {
    expect(fs.readFileSync(path.join(process.cwd(), CLIENT_TYPES_FILE), "utf8")).toBe(await generateClientTypes());
  });
});

describe("checking an answer against the document", () => {
  const paid = (body: unknown, status = 201, headers: Record<string, string> = {}) => ({
    method: "POST",
    path: "/v3/points/top-ups",
    status,
    headers: { "content-type": "application/json; charset=utf-8", "x-request-id": "req_1", ...headers },
    body: JSON.stringify(body),
  });

  it("passes a purchase that matches", () => {
    expect(
      checkAgainstDocument(paid({ status: "success", data: { top_up: exampleTopUp, points_balance: 100 } })),
    ).toEqual([]);
  });

  it("fails a field the document does not have, a missing one, and a wrong type", () => {
    const extra = { ...exampleTopUp, price: 5 };
    expect(
      checkAgainstDocument(paid({ status: "success", data: { top_up: extra, points_balance: 100 } })).join(),
    ).toMatch(/additional/);
    const { dispute: _dropped, ...missing } = exampleTopUp;
    expect(
      checkAgainstDocument(paid({ status: "success", data: { top_up: missing, points_balance: 100 } })).join(),
    ).toMatch(/dispute/);
    expect(
      checkAgainstDocument(
        paid({ status: "success", data: { top_up: { ...exampleTopUp, amount: "89.00" }, points_balance: 100 } }),
      ).join(),
    ).toMatch(/integer/);
  });

  it("fails a status the operation does not list, an error code filed under another status, and a missing request id", () => {
    expect(checkAgainstDocument(paid({}, 204)).join()).toMatch(/does not list/);
    const limited = { status: "error", error: { code: "limit_exceeded", message: "x", details: {} } };
    expect(checkAgainstDocument(paid(limited, 429, { "retry-after": "5" })).join()).toMatch(/allowed values|enum/);
    expect(
      checkAgainstDocument({ ...paid(limited, 409), headers: { "content-type": "application/json" } }).join(),
    ).toMatch(/X-Request-Id/);
  });

  it("holds unknown paths and methods to the error envelope", () => {
    const notFound = {
      method: "GET",
      path: "/v3/nothing",
      status: 404,
      headers: { "content-type": "application/json" },
    };
    expect(
      checkAgainstDocument({
        ...notFound,
        body: JSON.stringify({ status: "error", error: { code: "not_found", message: "x", details: {} } }),
      }),
    ).toEqual([]);
    expect(checkAgainstDocument({ ...notFound, body: JSON.stringify({ error: "Not Found" }) }).join()).toMatch(/Error/);
    expect(checkAgainstDocument({ ...notFound, status: 200, body: "{}" }).join()).toMatch(/no such operation/);
  });
});
