import { z } from "zod";
import {
  BUNDLES,
  type Bundle,
  CURRENCIES,
  type Currency,
  RECHARGE_REFERENCE_PREFIX,
  REFERENCE_MAX_LENGTH,
  REFERENCE_PATTERN,
} from "@/lib/catalog";
import { type FieldWording, parseBody } from "./request-fields";
import { bundleSchema, currencySchema } from "./schemas";

/** A purchase request after validation; optional fields that were omitted or null are undefined. */
export interface TopUpRequest {
  points: Bundle;
  currency?: Currency;
  paymentSourceId?: string;
  reference: string;
}

const fieldMessages = {
  points: `must be one of the bundles ${BUNDLES.join(", ")}`,
  currency: `must be one of ${CURRENCIES.join(", ")}, or omitted to use the organisation's saved currency`,
  payment_source_id:
    "must be the ID of a saved payment method (from GET /v3/points/payment-methods), or omitted to use the default",
  reference: `must be 1 to ${REFERENCE_MAX_LENGTH} letters, digits, '.', '_', ':' or '-', unique per purchase`,
} as const;

/** A field the body left out is named as missing, with what it takes; one that was sent, by what is wrong. */
const missingMessages: Partial<Record<keyof typeof fieldMessages, string>> = {
  reference: `is required: 1 to ${REFERENCE_MAX_LENGTH} letters, digits, '.', '_', ':' or '-', unique per purchase`,
};

const priceFields = new Set(["price", "amount", "unit_amount", "total", "cost"]);
const customerFields = new Set(["customer", "customer_id", "organization_id", "organisation_id"]);

/** POST /v3/points/quotes's body: the parser below and the OpenAPI document both read it. */
export const quoteRequestSchema = z
  .strictObject({
    points: bundleSchema,
    currency: currencySchema
      .nullish()
      .meta({ description: "Omit (or null) to use the organisation's saved currency." }),
    payment_source_id: z.string().min(1).nullish().meta({
      description: "A saved payment method's id (GET /v3/points/payment-methods); omit (or null) to use the default.",
      example: "pm_1QabcDEF",
    }),
  })
  .meta({ id: "QuoteRequest" });

/** A purchase's reference: its length, its characters, and not in auto-recharge's own space. */
const purchaseReferenceSchema = z
  .string()
  .min(1)
  .max(REFERENCE_MAX_LENGTH)
  .regex(REFERENCE_PATTERN)
  .refine((reference) => !reference.startsWith(RECHARGE_REFERENCE_PREFIX), {
    message: `must not start with '${RECHARGE_REFERENCE_PREFIX}': the service names its auto-recharges so`,
  });

/** Whether a text is a reference a purchase may be made with (the dashboard carries one in its URL). */
export function isPurchaseReference(text: string): boolean {
  return purchaseReferenceSchema.safeParse(text).success;
}

/** POST /v3/points/top-ups's body. */
export const topUpRequestSchema = quoteRequestSchema
  .extend({
    reference: purchaseReferenceSchema.meta({
      description: `Your id for this purchase, unique per organisation: retrying with it never charges twice. References starting with \`${RECHARGE_REFERENCE_PREFIX}\` are the service's own auto-recharges.`,
      example: "order-1042",
    }),
  })
  .meta({ id: "TopUpRequest" });

/** What a quote (POST /v3/points/quotes) asks about: a purchase's fields but its reference. */
export type QuoteRequest = Omit<TopUpRequest, "reference">;

/**
 * Validates a purchase body strictly and reports every offending field at once in
 * details.fields, as docs/contract.md §1 and §4 step 4 require.
 */
export function parseTopUpRequest(body: unknown): TopUpRequest {
  const { reference, ...terms } = parseBody(topUpRequestSchema, body, wording);
  return { ...toRequest(terms), reference };
}

/**
 * Validates a quote body by the same rules as a purchase's, without `reference`: a quote names no
 * purchase, so a `reference` is refused like any other unknown field.
 */
export function parseQuoteRequest(body: unknown): QuoteRequest {
  return toRequest(parseBody(quoteRequestSchema, body, wording));
}

function toRequest(data: z.infer<typeof quoteRequestSchema>): QuoteRequest {
  return {
    points: data.points,
    currency: data.currency ?? undefined,
    paymentSourceId: data.payment_source_id ?? undefined,
  };
}

/** The purchase's and the quote's words for a bad field (request-fields.ts parses). */
const wording: FieldWording = {
  rules: fieldMessages,
  missing: (field) => missingMessages[field as keyof typeof missingMessages],
  unknown: unknownFieldMessage,
};

function unknownFieldMessage(key: string): string {
  if (key === "reference") return "is not accepted: a quote buys nothing, so it names no purchase";
  if (priceFields.has(key)) return "is not accepted: prices are set by the billing provider";
  if (customerFields.has(key)) return "is not accepted: the customer is the organisation that owns the API key";
  return "is not an accepted field";
}
