import http from "node:http";
import { expect, test } from "../fixtures";
import {
  bearer,
  cardOf,
  expectInvalidFields,
  expectPaidNow,
  expectPlainError,
  MAX_BODY_BYTES,
  postRaw,
  postTopUp,
  readEnvelope,
  TOP_UPS,
  uniqueRef,
} from "../utils";

/**
 * docs/contract.md §4 step 4 against the main organisation, which passes every other check: only the
 * body decides. Every case must be refused with exactly the offending fields in details.fields.
 */
interface FieldCase {
  name: string;
  /** A valid body is built first; this changes it. */
  change: (body: Record<string, unknown>) => void;
  fields: string[];
}

const set = (field: string, value: unknown) => (body: Record<string, unknown>) => {
  body[field] = value;
};
const remove = (field: string) => (body: Record<string, unknown>) => {
  delete body[field];
};

const fieldCases: FieldCase[] = [
  { name: "points as a string", change: set("points", "100"), fields: ["points"] },
  { name: "points as a float", change: set("points", 100.5), fields: ["points"] },
  { name: "points not a bundle", change: set("points", 101), fields: ["points"] },
  { name: "points zero", change: set("points", 0), fields: ["points"] },
  { name: "points negative", change: set("points", -100), fields: ["points"] },
  { name: "points above every bundle", change: set("points", 10000), fields: ["points"] },
  { name: "points as a boolean", change: set("points", true), fields: ["points"] },
  { name: "points as an object", change: set("points", { value: 100 }), fields: ["points"] },
  { name: "points as an array", change: set("points", [100]), fields: ["points"] },
  { name: "points null", change: set("points", null), fields: ["points"] },
  { name: "points missing", change: remove("points"), fields: ["points"] },
  { name: "currency lowercase", change: set("currency", "usd"), fields: ["currency"] },
  { name: "currency unknown", change: set("currency", "JPY"), fields: ["currency"] },
  { name: "currency empty", change: set("currency", ""), fields: ["currency"] },
  { name: "currency with a blank", change: set("currency", "USD "), fields: ["currency"] },
  { name: "currency as a number", change: set("currency", 840), fields: ["currency"] },
  { name: "payment_source_id empty", change: set("payment_source_id", ""), fields: ["payment_source_id"] },
  { name: "payment_source_id as a number", change: set("payment_source_id", 42), fields: ["payment_source_id"] },
  {
    name: "payment_source_id as an object",
    change: set("payment_source_id", { id: "pm_1" }),
    fields: ["payment_source_id"],
  },
  { name: "payment_source_id as an array", change: set("payment_source_id", ["pm_1"]), fields: ["payment_source_id"] },
  { name: "payment_source_id as a boolean", change: set("payment_source_id", true), fields: ["payment_source_id"] },
  { name: "reference empty", change: set("reference", ""), fields: ["reference"] },
  { name: "reference of 101 characters", change: set("reference", "r".repeat(101)), fields: ["reference"] },
  { name: "reference with a blank", change: set("reference", "has space"), fields: ["reference"] },
  { name: "reference with a slash", change: set("reference", "a/b"), fields: ["reference"] },
  { name: "reference with a non-ASCII letter", change: set("reference", "réf-1"), fields: ["reference"] },
  { name: "reference with a newline", change: set("reference", "ref\n1"), fields: ["reference"] },
  { name: "reference with a NUL", change: set("reference", "ref\u00001"), fields: ["reference"] },
  { name: "reference with SQL", change: set("reference", "x'; drop table top_ups; --"), fields: ["reference"] },
  { name: "reference as a number", change: set("reference", 12345), fields: ["reference"] },
  { name: "reference null", change: set("reference", null), fields: ["reference"] },
  {
    name: "reference in auto-recharge's own space",
    change: set("reference", "auto-recharge:1"),
    fields: ["reference"],
  },
  { name: "reference missing", change: remove("reference"), fields: ["reference"] },
  { name: "a price", change: set("price", 1), fields: ["price"] },
  { name: "an amount", change: set("amount", 1000), fields: ["amount"] },
  { name: "a unit_amount", change: set("unit_amount", 1000), fields: ["unit_amount"] },
  { name: "a customer", change: set("customer", "cus_123"), fields: ["customer"] },
  { name: "a customer_id", change: set("customer_id", "cus_123"), fields: ["customer_id"] },
  { name: "an unknown field", change: set("colour", "blue"), fields: ["colour"] },
  { name: "an unknown field that is null", change: set("note", null), fields: ["note"] },
  { name: "a field named constructor", change: set("constructor", 1), fields: ["constructor"] },
  { name: "a field named toString", change: set("toString", "x"), fields: ["toString"] },
  { name: "a field in another case", change: set("Points", 100), fields: ["Points"] },
];

test.describe("POST /v3/points/top-ups validation (422 invalid_request)", () => {
  for (const c of fieldCases) {
    test(`${c.name} is refused, naming ${c.fields.join(", ")}`, async ({ request, fx }) => {
      const body: Record<string, unknown> = { points: 100, currency: "USD", reference: uniqueRef("val") };
      c.change(body);
      await expectInvalidFields(await postTopUp(request, fx.organizations.main, body), c.fields);
    });
  }

  test("every offending field is listed at once", async ({ request, fx }) => {
    const response = await postTopUp(request, fx.organizations.main, {
      points: "100",
      currency: "usd",
      payment_source_id: "",
      reference: "",
      price: 1000,
      customer_id: "cus_123",
      amount: 1000,
    });
    await expectInvalidFields(response, [
      "points",
      "currency",
      "payment_source_id",
      "reference",
      "price",
      "customer_id",
      "amount",
    ]);
  });

  test("a field named __proto__ is refused and named", async ({ request, fx }) => {
    // JSON.stringify cannot produce an own __proto__ key, so the bytes are written by hand.
    const raw = `{"points":100,"reference":"${uniqueRef("proto")}","__proto__":{"points":7500}}`;
    await expectInvalidFields(await postRaw(request, bearer(fx.organizations.main), raw), ["__proto__"]);
  });

  test("a field sent twice is refused and named: a money request must not be ambiguous", async ({ request, fx }) => {
    const reference = uniqueRef("dup");
    const raw = `{"points":100,"reference":"${reference}","points":7500}`;
    await expectInvalidFields(await postRaw(request, bearer(fx.organizations.main), raw), ["points"]);
    // Nothing was bought under that reference: the same reference, sent once, is a new purchase.
    const clean = await postRaw(request, bearer(fx.organizations.main), `{"points":100,"reference":"${reference}"}`);
    expect(clean.status()).toBe(201);
  });

  test("a number too large for a double is refused as points", async ({ request, fx }) => {
    const raw = `{"points":1e400,"reference":"${uniqueRef("inf")}"}`;
    await expectInvalidFields(await postRaw(request, bearer(fx.organizations.main), raw), ["points"]);
  });

  test("a refused request buys nothing: the same reference is then free for a valid purchase", async ({
    request,
    fx,
  }) => {
    const reference = uniqueRef("then-valid");
    await expectInvalidFields(await postTopUp(request, fx.organizations.main, { points: 101, reference }), ["points"]);
    await expectPaidNow(await postTopUp(request, fx.organizations.main, { points: 100, reference }), { reference });
  });
});

test.describe("accepted bodies", () => {
  test("null optional fields count as omitted: the saved currency and the default card are used", async ({
    request,
    fx,
  }) => {
    const main = fx.organizations.main;
    const reference = uniqueRef("nulls");
    await expectPaidNow(
      await postTopUp(request, main, { points: 100, currency: null, payment_source_id: null, reference }),
      {
        reference,
        currency: "USD",
        payment_source_id: cardOf(main, "visa").id,
      },
    );
  });

  test("a reference of exactly 100 characters, using every allowed punctuation mark, is accepted", async ({
    request,
    fx,
  }) => {
    const prefix = `Ab9._:-${uniqueRef("max")}`;
    const reference = prefix + "z".repeat(100 - prefix.length);
    expect(reference).toHaveLength(100);
    await expectPaidNow(await postTopUp(request, fx.organizations.main, { points: 100, reference }), { reference });
  });

  test("every bundle is accepted", async ({ request, fx }) => {
    for (const points of [100, 250, 500, 1000, 2500, 5000, 7500]) {
      await expectPaidNow(
        await postTopUp(request, fx.organizations.main, { points, reference: uniqueRef(`b${points}`) }),
        { points },
      );
    }
  });

  test("a body of exactly 64 KiB is read", async ({ request, fx }) => {
    const json = JSON.stringify({ points: 100, reference: uniqueRef("edge") });
    const raw = json + " ".repeat(MAX_BODY_BYTES - Buffer.byteLength(json));
    expect(Buffer.byteLength(raw)).toBe(MAX_BODY_BYTES);
    await expectPaidNow(await postRaw(request, bearer(fx.organizations.main), raw));
  });
});

test.describe("bodies that are not a JSON object (422 invalid_request on body)", () => {
  const bodies: { name: string; raw: string | Buffer }[] = [
    { name: "an array", raw: "[]" },
    { name: "an array holding the fields", raw: '[{"points":100,"reference":"a"}]' },
    { name: "a string", raw: '"points=100"' },
    { name: "a number", raw: "100" },
    { name: "null", raw: "null" },
    { name: "true", raw: "true" },
    { name: "invalid JSON", raw: "{points: 100}" },
    { name: "truncated JSON", raw: '{"points": 100, "reference": "a' },
    { name: "form encoding", raw: "points=100&reference=abc" },
    { name: "an empty body", raw: "" },
    { name: "only whitespace", raw: " \n\t " },
    { name: "invalid UTF-8", raw: Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d]) },
    { name: "deeply nested arrays", raw: `${"[".repeat(20000)}${"]".repeat(20000)}` },
  ];
  for (const b of bodies) {
    test(`${b.name} is refused`, async ({ request, fx }) => {
      await expectInvalidFields(await postRaw(request, bearer(fx.organizations.main), b.raw), ["body"]);
    });
  }

  test("deeply nested objects inside a field are refused as that field", async ({ request, fx }) => {
    const nested = `${'{"a":'.repeat(10000)}1${"}".repeat(10000)}`;
    const raw = `{"points":${nested},"reference":"${uniqueRef("deep")}"}`;
    await expectInvalidFields(await postRaw(request, bearer(fx.organizations.main), raw), ["points"]);
  });

  test("no request body at all is refused", async ({ request, fx }) => {
    const response = await request.post(TOP_UPS, { headers: bearer(fx.organizations.main) });
    await expectInvalidFields(response, ["body"]);
  });
});

test.describe("bodies over 64 KiB (413 request_too_large)", () => {
  test("one byte over 64 KiB with a Content-Length is refused", async ({ request, fx }) => {
    const json = JSON.stringify({ points: 100, reference: uniqueRef("over") });
    const raw = json + " ".repeat(MAX_BODY_BYTES + 1 - Buffer.byteLength(json));
    const error = await expectPlainError(
      await postRaw(request, bearer(fx.organizations.main), raw),
      413,
      "request_too_large",
    );
    expect(error.details).toEqual({ max_bytes: MAX_BODY_BYTES });
  });

  test("a megabyte is refused", async ({ request, fx }) => {
    const raw = JSON.stringify({ points: 100, reference: uniqueRef("mega"), pad: "x".repeat(1024 * 1024) });
    await expectPlainError(await postRaw(request, bearer(fx.organizations.main), raw), 413, "request_too_large");
  });

  test("a chunked body without a Content-Length is refused once it passes 64 KiB", async ({ fx }) => {
    const response = await postChunked(fx.baseUrl, fx.organizations.main.apiKey, 80 * 1024);
    expect(response.status).toBe(413);
    expect(response.headers["content-type"]).toMatch(/^application\/json\b/);
    expect(response.headers["x-request-id"]).toMatch(/^[A-Za-z0-9._:-]{1,100}$/);
    const body = JSON.parse(response.body) as { status: string; error: { code: string } };
    expect(body.status).toBe("error");
    expect(body.error.code).toBe("request_too_large");
  });

  test("a small chunked body without a Content-Length is read", async ({ fx }) => {
    const response = await postChunked(fx.baseUrl, fx.organizations.main.apiKey, 0);
    expect(response.status, response.body).toBe(201);
  });

  test("an oversized body does not stop the next request on the same organisation", async ({ request, fx }) => {
    const raw = "x".repeat(MAX_BODY_BYTES * 2);
    await readEnvelope(await postRaw(request, bearer(fx.organizations.main), raw));
    await expectPaidNow(
      await postTopUp(request, fx.organizations.main, { points: 100, reference: uniqueRef("after-big") }),
    );
  });
});

interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** Streams a purchase body in 8 KiB chunks with Transfer-Encoding: chunked (no Content-Length). */
function postChunked(baseUrl: string, apiKey: string, padBytes: number): Promise<RawResponse> {
  const json = JSON.stringify({ points: 100, reference: uniqueRef("chunked") });
  const payload = Buffer.from(`${json.slice(0, -1) + " ".repeat(padBytes)}}`);
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${baseUrl}${TOP_UPS}`,
      {
        method: "POST",
        headers: {
          Authorization: `Bearer ${apiKey}`,
          "Content-Type": "application/json",
          "Transfer-Encoding": "chunked",
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString("utf8") }),
        );
        res.on("error", reject);
      },
    );
    // The server may answer and close before the whole body is sent; that is the point.
    req.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code !== "EPIPE" && error.code !== "ECONNRESET") reject(error);
    });
    for (let offset = 0; offset < payload.length; offset += 8192) req.write(payload.subarray(offset, offset + 8192));
    req.end();
  });
}
