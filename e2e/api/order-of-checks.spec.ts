import type { APIRequestContext, APIResponse } from "@playwright/test";
import type { E2eFixtures } from "../fixtures";
import { expect, test } from "../fixtures";
import {
  bearer,
  expectPaidNow,
  expectPlainError,
  expectRetryAfter,
  expectSuccess,
  getPaymentMethods,
  MAX_BODY_BYTES,
  postRaw,
  uniqueRef,
} from "../utils";
import { scopedKeysOf } from "./scoped-keys.fixtures";

/**
 * docs/contract.md §4: the checks of a purchase run in a fixed order and the first that fails answers.
 * Each case fails several checks at once; only the first may show. The refusing fixture
 * organisations (disabled, unavailable, outage) are provisioned to fail every later check too.
 */
interface OrderCase {
  name: string;
  authorization: (fx: E2eFixtures) => string | undefined;
  body: () => string;
  status: number;
  code: string;
  retryAfter?: boolean;
}

const validBody = () => JSON.stringify({ points: 100, reference: uniqueRef("order") });
const badBody = () => JSON.stringify({ points: "lots", currency: "usd", reference: "", price: 1 });
const hugeBody = () => JSON.stringify({ points: 100, reference: uniqueRef("huge"), pad: "x".repeat(MAX_BODY_BYTES) });
const unknownKey = `Bearer pts_${"Z".repeat(40)}`;

const cases: OrderCase[] = [
  {
    name: "step 1: an unknown key with an invalid body",
    authorization: () => unknownKey,
    body: badBody,
    status: 403,
    code: "invalid_api_key",
  },
  {
    name: "step 1: an unknown key with a body over 64 KiB",
    authorization: () => unknownKey,
    body: hugeBody,
    status: 403,
    code: "invalid_api_key",
  },
  {
    name: "step 1: no key with a body that is not JSON",
    authorization: () => undefined,
    body: () => "{nope",
    status: 403,
    code: "invalid_api_key",
  },
  {
    name: "step 1: a revoked key with a valid body",
    authorization: (fx) => `Bearer ${fx.revokedKey}`,
    body: validBody,
    status: 403,
    code: "invalid_api_key",
  },
  {
    name: "step 2: not available, disabled, no card, in outage, with an invalid body",
    authorization: (fx) => `Bearer ${fx.organizations.unavailable.apiKey}`,
    body: badBody,
    status: 404,
    code: "not_available",
  },
  {
    name: "step 2: not available and disabled with a valid body",
    authorization: (fx) => `Bearer ${fx.organizations.unavailable.apiKey}`,
    body: validBody,
    status: 404,
    code: "not_available",
  },
  {
    name: "step 2: not available although enabled, with a valid body",
    authorization: (fx) => `Bearer ${fx.organizations.unavailableEnabled.apiKey}`,
    body: validBody,
    status: 404,
    code: "not_available",
  },
  {
    name: "step 3: disabled, no card, no currency, in outage, with an invalid body",
    authorization: (fx) => `Bearer ${fx.organizations.disabled.apiKey}`,
    body: badBody,
    status: 403,
    code: "api_purchases_disabled",
  },
  {
    name: "step 3: disabled with a body over 64 KiB",
    authorization: (fx) => `Bearer ${fx.organizations.disabled.apiKey}`,
    body: hugeBody,
    status: 403,
    code: "api_purchases_disabled",
  },
  {
    name: "step 3: disabled with a valid body",
    authorization: (fx) => `Bearer ${fx.organizations.disabled.apiKey}`,
    body: validBody,
    status: 403,
    code: "api_purchases_disabled",
  },
  {
    name: "step 2: a read key, not available and disabled, with an invalid body",
    authorization: (fx) => `Bearer ${scopedKeysOf(fx).unavailableReadKey}`,
    body: badBody,
    status: 404,
    code: "not_available",
  },
  {
    name: "step 3: a read key, disabled, with an invalid body",
    authorization: (fx) => `Bearer ${scopedKeysOf(fx).disabledReadKey}`,
    body: badBody,
    status: 403,
    code: "api_purchases_disabled",
  },
  {
    name: "step 3, the scope: a read key with an invalid body",
    authorization: (fx) => `Bearer ${scopedKeysOf(fx).readKey}`,
    body: badBody,
    status: 403,
    code: "insufficient_scope",
  },
  {
    name: "step 3, the scope: a read key with a body over 64 KiB",
    authorization: (fx) => `Bearer ${scopedKeysOf(fx).readKey}`,
    body: hugeBody,
    status: 403,
    code: "insufficient_scope",
  },
  {
    name: "step 4: no saved currency, several cards and no default, with an invalid body",
    authorization: (fx) => `Bearer ${fx.organizations.noCurrency.apiKey}`,
    body: () => JSON.stringify({ points: 101, reference: uniqueRef("o") }),
    status: 422,
    code: "invalid_request",
  },
  {
    name: "step 4: in outage with a body over 64 KiB",
    authorization: (fx) => `Bearer ${fx.organizations.outage.apiKey}`,
    body: hugeBody,
    status: 413,
    code: "request_too_large",
  },
  {
    name: "step 5: no saved currency and none sent, in outage",
    authorization: (fx) => `Bearer ${fx.organizations.outage.apiKey}`,
    body: validBody,
    status: 422,
    code: "currency_required",
  },
  {
    name: "step 5: no saved currency and none sent, several cards and no default",
    authorization: (fx) => `Bearer ${fx.organizations.noCurrency.apiKey}`,
    body: validBody,
    status: 422,
    code: "currency_required",
  },
  {
    name: "step 6: in outage with a currency",
    authorization: (fx) => `Bearer ${fx.organizations.outage.apiKey}`,
    body: () => JSON.stringify({ points: 100, currency: "EUR", reference: uniqueRef("o") }),
    status: 502,
    code: "payment_methods_unavailable",
    retryAfter: true,
  },
  {
    name: "step 6: an unknown payment method for a bundle over the organisation's maximum",
    authorization: (fx) => `Bearer ${fx.organizations.maxPerTopUp.apiKey}`,
    body: () => JSON.stringify({ points: 7500, payment_source_id: "pm_sim_unknown", reference: uniqueRef("o") }),
    status: 422,
    code: "invalid_payment_method",
  },
  {
    name: "step 6: no usable card for a bundle with every limit passed",
    authorization: (fx) => `Bearer ${fx.organizations.expiredOnly.apiKey}`,
    body: validBody,
    status: 422,
    code: "no_payment_method",
  },
];

async function send(request: APIRequestContext, fx: E2eFixtures, c: OrderCase): Promise<APIResponse> {
  const authorization = c.authorization(fx);
  return postRaw(request, authorization ? { Authorization: authorization } : {}, c.body());
}

test.describe("POST /v3/points/top-ups answers the first failing check", () => {
  for (const c of cases) {
    test(`${c.name} → ${c.status} ${c.code}`, async ({ request, fx }) => {
      const response = await send(request, fx, c);
      await expectPlainError(response, c.status, c.code);
      if (c.retryAfter) expectRetryAfter(response, 3600);
    });
  }

  test("step 8 is reached only after steps 1 to 7 pass: a bundle over the maximum is limit_exceeded", async ({
    request,
    fx,
  }) => {
    const response = await postRaw(
      request,
      bearer(fx.organizations.maxPerTopUp),
      JSON.stringify({ points: 7500, reference: uniqueRef("o") }),
    );
    const error = await expectPlainError(response, 409, "limit_exceeded");
    expect(error.details.limit).toBe("max_points_per_top_up");
  });

  test("a bundle at the organisation's maximum goes through: the limit alone refused the larger one", async ({
    request,
    fx,
  }) => {
    await expectPaidNow(
      await postRaw(
        request,
        bearer(fx.organizations.maxPerTopUp),
        JSON.stringify({ points: 500, reference: uniqueRef("o") }),
      ),
      { points: 500 },
    );
  });
});

test.describe("GET /v3/points/payment-methods answers 403 → 404 → 403 → 502 → 200", () => {
  const getCases: { name: string; key: (fx: E2eFixtures) => string; status: number; code: string }[] = [
    { name: "an unknown key", key: () => `pts_${"Z".repeat(40)}`, status: 403, code: "invalid_api_key" },
    { name: "a revoked key", key: (fx) => fx.revokedKey, status: 403, code: "invalid_api_key" },
    {
      name: "not available, disabled and in outage",
      key: (fx) => fx.organizations.unavailable.apiKey,
      status: 404,
      code: "not_available",
    },
    {
      name: "not available although enabled",
      key: (fx) => fx.organizations.unavailableEnabled.apiKey,
      status: 404,
      code: "not_available",
    },
    {
      name: "disabled and in outage",
      key: (fx) => fx.organizations.disabled.apiKey,
      status: 403,
      code: "api_purchases_disabled",
    },
    {
      name: "in outage",
      key: (fx) => fx.organizations.outage.apiKey,
      status: 502,
      code: "payment_methods_unavailable",
    },
  ];
  for (const c of getCases) {
    test(`${c.name} → ${c.status} ${c.code}`, async ({ request, fx }) => {
      const response = await getPaymentMethods(request, c.key(fx));
      await expectPlainError(response, c.status, c.code);
      if (c.status === 502) expectRetryAfter(response, 3600);
    });
  }

  test("an enabled, available organisation → 200", async ({ request, fx }) => {
    await expectSuccess(await getPaymentMethods(request, fx.organizations.main), 200);
  });
});
