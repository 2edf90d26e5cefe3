import { describe, expect, it } from "vitest";
import { BUNDLES, CURRENCIES } from "@/lib/catalog";
import { PointsError } from "../errors";
import { isPurchaseReference, parseTopUpRequest } from "./top-up-request";

/** The PointsError parseTopUpRequest throws for a body, or a failure if it accepts it. */
function refusal(body: unknown): PointsError {
  try {
    parseTopUpRequest(body);
  } catch (error) {
    if (error instanceof PointsError) return error;
    throw error;
  }
  throw new Error(`Expected ${JSON.stringify(body)} to be refused, but it was accepted.`);
}

/** The offending fields of a refused body, by name. */
function refusedFields(body: unknown): Record<string, unknown> {
  const error = refusal(body);
  expect(error.code).toBe("invalid_request");
  expect(error.status).toBe(422);
  const fields = error.details.fields;
  if (typeof fields !== "object" || fields === null) throw new Error("details.fields is missing");
  return fields as Record<string, unknown>;
}

const valid = { points: 100, reference: "order-1" };

describe("parseTopUpRequest", () => {
  describe("accepts", () => {
    it.each(BUNDLES.map((points) => [points]))("the bundle %i", (points) => {
      expect(parseTopUpRequest({ points, reference: "r" })).toEqual({ points, reference: "r" });
    });

    it.each(CURRENCIES.map((currency) => [currency]))("the currency %s", (currency) => {
      expect(parseTopUpRequest({ ...valid, currency }).currency).toBe(currency);
    });

    it("a full body with every field, mapped to the domain's names", () => {
      expect(
        parseTopUpRequest({
          points: 250,
          currency: "GBP",
          payment_source_id: "pm_sim_1",
          reference: "ref.2026:11_a-b",
        }),
      ).toEqual({ points: 250, currency: "GBP", paymentSourceId: "pm_sim_1", reference: "ref.2026:11_a-b" });
    });

    it("null optional fields as if they were omitted", () => {
      const parsed = parseTopUpRequest({ ...valid, currency: null, payment_source_id: null });
      expect(parsed).toEqual({ points: 100, reference: "order-1" });
      expect(parsed.currency).toBeUndefined();
      expect(parsed.paymentSourceId).toBeUndefined();
    });

    it("a reference of exactly 100 characters", () => {
      const reference = "a".repeat(100);
      expect(parseTopUpRequest({ ...valid, reference }).reference).toBe(reference);
    });

    it("a reference made of every allowed character: letters, digits, '.', '_', ':' and '-'", () => {
      const reference = "ABCxyz0189._:-";
      expect(parseTopUpRequest({ ...valid, reference }).reference).toBe(reference);
    });

    it("a reference of one character", () => {
      expect(parseTopUpRequest({ ...valid, reference: "x" }).reference).toBe("x");
    });
  });

  describe("refuses points", () => {
    it.each([
      ["missing", undefined],
      ["null", null],
      ["a string", "100"],
      ["not an integer", 100.5],
      ["not a bundle", 101],
      ["zero", 0],
      ["negative", -100],
      ["a boolean", true],
      ["an array", [100]],
    ])("when %s, naming the bundles", (_label, points) => {
      const fields = refusedFields({ ...valid, points });
      expect(Object.keys(fields)).toEqual(["points"]);
      expect(fields.points).toMatch(/100, 250, 500, 1000, 2500, 5000, 7500/);
    });
  });

  describe("refuses currency", () => {
    it.each([
      ["lower case", "usd"],
      ["unsupported", "JPY"],
      ["empty", ""],
      ["padded", " USD"],
      ["a number", 840],
    ])("when %s", (_label, currency) => {
      const fields = refusedFields({ ...valid, currency });
      expect(Object.keys(fields)).toEqual(["currency"]);
      expect(fields.currency).toMatch(/USD, GBP, EUR/);
    });
  });

  describe("refuses payment_source_id", () => {
    it.each([
      ["empty", ""],
      ["a number", 42],
      ["an object", { id: "pm_1" }],
    ])("when %s", (_label, payment_source_id) => {
      const fields = refusedFields({ ...valid, payment_source_id });
      expect(Object.keys(fields)).toEqual(["payment_source_id"]);
      expect(fields.payment_source_id).toMatch(/saved payment method/);
    });
  });

  describe("refuses reference", () => {
    it.each([
      ["missing", undefined],
      ["null", null],
      ["empty", ""],
      ["101 characters long", "a".repeat(101)],
      ["containing a space", "order 1"],
      ["containing a slash", "order/1"],
      ["containing a non-ASCII letter", "commandé"],
      ["containing '#'", "order#1"],
      ["containing '+'", "order+1"],
      ["ending in a newline", "order-1\n"],
      ["a number", 12345],
    ])("when %s", (_label, reference) => {
      const fields = refusedFields({ ...valid, reference });
      expect(Object.keys(fields)).toEqual(["reference"]);
      expect(fields.reference).toMatch(/1 to 100/);
    });

    it("by the same rule where the dashboard checks the reference it carries in its URL", () => {
      for (const reference of ["dash_abc", "order-1", "a".repeat(100)])
        expect(isPurchaseReference(reference)).toBe(true);
      for (const reference of ["", "order 1", "a".repeat(101), "auto-recharge:1"]) {
        expect(isPurchaseReference(reference)).toBe(false);
      }
    });

    it("starting with 'auto-recharge:', the references the service gives its own recharges", () => {
      for (const reference of ["auto-recharge:1", "auto-recharge:2", "auto-recharge:"]) {
        expect(refusedFields({ ...valid, reference })).toEqual({
          reference: "must not start with 'auto-recharge:': the service names its auto-recharges so",
        });
      }
      // Only that prefix, exactly: references are case-sensitive.
      for (const reference of ["Auto-Recharge:1", "auto-recharge-1", "my-auto-recharge:1"]) {
        expect(parseTopUpRequest({ ...valid, reference }).reference).toBe(reference);
      }
    });

    it("saying it is required only when it was left out, and what is wrong with one that was sent", () => {
      expect(refusedFields({ points: 100 }).reference).toMatch(/^is required: 1 to 100 /);
      for (const reference of [null, "", "order 1", "a".repeat(101), 12345]) {
        expect(refusedFields({ ...valid, reference }).reference).toMatch(/^must be 1 to 100 /);
      }
    });
  });

  it("reports every offending field at once in details.fields", () => {
    const error = refusal({ points: 3, currency: "usd", payment_source_id: "", reference: "no spaces", price: 1 });
    expect(Object.keys(error.details.fields as object).sort()).toEqual(
      ["currency", "payment_source_id", "points", "price", "reference"].sort(),
    );
    // The message names every field too, so a person reading only the message can fix them all.
    for (const field of ["points", "currency", "payment_source_id", "reference", "price"]) {
      expect(error.message).toContain(`\`${field}\``);
    }
  });

  it("reports a missing points and a missing reference together", () => {
    expect(Object.keys(refusedFields({})).sort()).toEqual(["points", "reference"]);
  });

  describe("refuses fields a client must never send", () => {
    it.each(["price", "amount", "unit_amount"])("a price field `%s`, saying prices come from the provider", (field) => {
      const fields = refusedFields({ ...valid, [field]: 1 });
      expect(Object.keys(fields)).toEqual([field]);
      expect(fields[field]).toMatch(/prices are set by the billing provider/);
    });

    it.each(["customer", "customer_id"])("a customer field `%s`, saying the key decides the customer", (field) => {
      const fields = refusedFields({ ...valid, [field]: "cus_123" });
      expect(Object.keys(fields)).toEqual([field]);
      expect(fields[field]).toMatch(/the customer is the organisation that owns the API key/);
    });

    it("an unknown field, even when its value is null", () => {
      const fields = refusedFields({ ...valid, quantity: null });
      expect(fields).toEqual({ quantity: "is not an accepted field" });
    });

    it("a price and a customer field side by side, each with its own message", () => {
      const fields = refusedFields({ ...valid, amount: 1, customer: "cus_1", colour: "red" });
      expect(fields.amount).toMatch(/billing provider/);
      expect(fields.customer).toMatch(/organisation that owns the API key/);
      expect(fields.colour).toBe("is not an accepted field");
    });
  });

  describe("refuses a body that is not a JSON object", () => {
    it.each([
      ["null", null],
      ["undefined", undefined],
      ["an array", [{ points: 100, reference: "r" }]],
      ["a string", '{"points":100,"reference":"r"}'],
      ["a number", 100],
      ["a boolean", true],
    ])("%s", (_label, body) => {
      expect(refusedFields(body)).toEqual({ body: "must be a JSON object" });
    });
  });
});
