import type { E2eFixtures } from "../fixtures";
import { expect, test } from "../fixtures";
import { expectPaidNow, expectPlainError, expectSuccess, PAYMENT_METHODS, postRaw, uniqueRef } from "../utils";

/** docs/contract.md §4 step 1 and §5: `Authorization: Bearer <key>`, scheme case-insensitive, active keys only. */
const refused: { name: string; authorization: (fx: E2eFixtures) => string | undefined }[] = [
  { name: "no Authorization header", authorization: () => undefined },
  { name: "an empty Authorization header", authorization: () => "" },
  {
    name: "the Basic scheme",
    authorization: (fx) => `Basic ${Buffer.from(`${fx.organizations.main.apiKey}:`).toString("base64")}`,
  },
  { name: "the Token scheme", authorization: (fx) => `Token ${fx.organizations.main.apiKey}` },
  { name: "the key without a scheme", authorization: (fx) => fx.organizations.main.apiKey },
  { name: "Bearer without a key", authorization: () => "Bearer" },
  { name: "Bearer and a blank", authorization: () => "Bearer   " },
  { name: "a key followed by another word", authorization: (fx) => `Bearer ${fx.organizations.main.apiKey} extra` },
  { name: "a well-formed unknown key", authorization: () => `Bearer pts_${"a".repeat(40)}` },
  {
    name: "a key with one character changed",
    authorization: (fx) => `Bearer ${flipLast(fx.organizations.main.apiKey)}`,
  },
  { name: "a key cut short", authorization: (fx) => `Bearer ${fx.organizations.main.apiKey.slice(0, -1)}` },
  { name: "a key in another case", authorization: (fx) => `Bearer ${swapCase(fx.organizations.main.apiKey)}` },
  { name: "a revoked key", authorization: (fx) => `Bearer ${fx.revokedKey}` },
  { name: "an SQL-looking key", authorization: () => "Bearer ' OR '1'='1" },
  { name: "a very long key", authorization: () => `Bearer pts_${"a".repeat(4000)}` },
];

const accepted: { name: string; scheme: string }[] = [
  { name: "Bearer", scheme: "Bearer" },
  { name: "lowercase bearer", scheme: "bearer" },
  { name: "uppercase BEARER", scheme: "BEARER" },
];

function flipLast(key: string): string {
  const last = key.slice(-1);
  return key.slice(0, -1) + (last === "a" ? "b" : "a");
}

function swapCase(key: string): string {
  const body = key.slice(4);
  const swapped = [...body].map((c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase())).join("");
  return `pts_${swapped}`;
}

function headersFor(authorization: string | undefined): Record<string, string> {
  return authorization === undefined ? {} : { Authorization: authorization };
}

test.describe("POST /v3/points/top-ups authentication", () => {
  for (const c of refused) {
    test(`${c.name} → 403 invalid_api_key`, async ({ request, fx }) => {
      const response = await postRaw(
        request,
        headersFor(c.authorization(fx)),
        JSON.stringify({ points: 100, reference: uniqueRef("auth") }),
      );
      await expectPlainError(response, 403, "invalid_api_key");
    });
  }

  for (const c of accepted) {
    test(`the ${c.name} scheme is accepted → 201`, async ({ request, fx }) => {
      const response = await postRaw(
        request,
        { Authorization: `${c.scheme} ${fx.organizations.main.apiKey}` },
        JSON.stringify({ points: 100, reference: uniqueRef("scheme") }),
      );
      await expectPaidNow(response, { points: 100 });
    });
  }

  test("a revoked key refuses while the organisation's active key still buys", async ({ request, fx }) => {
    const body = JSON.stringify({ points: 100, reference: uniqueRef("revoked") });
    await expectPlainError(
      await postRaw(request, { Authorization: `Bearer ${fx.revokedKey}` }, body),
      403,
      "invalid_api_key",
    );
    await expectPaidNow(await postRaw(request, { Authorization: `Bearer ${fx.organizations.main.apiKey}` }, body));
  });
});

test.describe("GET /v3/points/payment-methods authentication", () => {
  for (const c of refused) {
    test(`${c.name} → 403 invalid_api_key`, async ({ request, fx }) => {
      const response = await request.get(PAYMENT_METHODS, { headers: headersFor(c.authorization(fx)) });
      await expectPlainError(response, 403, "invalid_api_key");
    });
  }

  for (const c of accepted) {
    test(`the ${c.name} scheme is accepted → 200`, async ({ request, fx }) => {
      const response = await request.get(PAYMENT_METHODS, {
        headers: { Authorization: `${c.scheme} ${fx.organizations.main.apiKey}` },
      });
      const data = await expectSuccess(response, 200);
      expect(Array.isArray(data.payment_methods)).toBe(true);
    });
  }

  test("an invalid key's 403 names nothing about the organisation", async ({ request, fx }) => {
    const response = await request.get(PAYMENT_METHODS, { headers: { Authorization: `Bearer ${fx.revokedKey}` } });
    const text = JSON.stringify(await expectPlainError(response, 403, "invalid_api_key"));
    expect(text).not.toContain(fx.organizations.main.id);
    expect(text).not.toContain(fx.revokedKey);
  });
});
