/**
 * The objects the API answers with, as zod schemas: the one description of each shape that the
 * serialisers are typed by (toTopUpJson returns a `TopUpJson`, …) and that the OpenAPI document
 * (lib/openapi) is generated from. Field meanings follow docs/contract.md §2.
 */
import { z } from "zod";
/// <reference types="zod-openapi" />
import { BUNDLES, CURRENCIES, REFERENCE_MAX_LENGTH, TOP_UP_SOURCES, TOP_UP_STATUSES } from "@/lib/catalog";
import { EVENT_TYPES } from "../events/events";

export type { EventJson } from "../events/events";

const instant = (description: string) =>
  z.iso.datetime().meta({ description: `${description} ISO 8601, UTC.`, example: "2026-11-24T09:30:00.000Z" });

export const bundleSchema = z.literal(BUNDLES).meta({
  id: "Bundle",
  description: "A bundle of Points: one of the fixed sizes on sale.",
  example: 1000,
});

export const currencySchema = z.enum(CURRENCIES).meta({
  id: "Currency",
  description: "An ISO 4217 currency the service sells in.",
  example: "EUR",
});

export const topUpIdSchema = z
  .string()
  .meta({ description: "A purchase's id.", example: "tu_01JD4B8M2N3P4Q5R6S7T8V9W0X" });

export const disputeSchema = z
  .object({
    status: z.enum(["open", "won", "lost"]).meta({ description: "The bank's decision, or `open` while it has none." }),
    points: z.number().int().min(0).meta({ description: "The Points the dispute concerns." }),
    points_state: z.enum(["held", "removed", "released"]).meta({
      description:
        "Where those Points stand: `held` (out of the spendable balance until the decision), `removed`, or `released` back to the balance.",
    }),
    opened_at: instant("When the dispute opened.").nullable(),
    closed_at: instant("When the bank decided; null while open.").nullable(),
  })
  .meta({ id: "Dispute", description: "A cardholder's dispute of the purchase's charge." });

export const topUpSchema = z
  .object({
    id: topUpIdSchema,
    reference: z
      .string()
      .max(REFERENCE_MAX_LENGTH)
      .meta({ description: "The caller's reference, unique per purchase.", example: "order-1042" }),
    points: bundleSchema,
    currency: currencySchema,
    amount: z
      .number()
      .int()
      .min(0)
      .meta({ description: "What was charged, in minor units, as the billing provider priced it.", example: 8900 }),
    payment_source_id: z.string().meta({ description: "The payment method charged.", example: "pm_1QabcDEF" }),
    status: z.enum(TOP_UP_STATUSES).meta({
      description:
        "`pending` and `processing` are unresolved; `awaiting_payment` waits for the cardholder; `paid` and `failed` are final. It stays `paid` whatever happens after the charge.",
    }),
    failure: z
      .object({
        code: z.string().meta({ description: "The provider's decline or action code.", example: "card_declined" }),
        message: z.string().meta({ description: "What happened, for a person." }),
      })
      .nullable()
      .meta({ description: "Why it is `failed` or `awaiting_payment`; null otherwise." }),
    source: z.enum(TOP_UP_SOURCES).meta({ description: "Where the purchase was made." }),
    created_at: instant("When the purchase was made."),
    paid_at: instant("When it was paid; null until then.").nullable(),
    refunded_points: z.number().int().min(0).meta({ description: "Points taken back by refunds.", example: 0 }),
    refunded_amount: z.number().int().min(0).meta({ description: "Money refunded, in minor units.", example: 0 }),
    dispute: disputeSchema.nullable(),
    receipt_url: z.string().nullable().meta({
      description:
        "The purchase's receipt in the dashboard (signed-in members of the organisation), once it is paid; null before. Absolute when the service's public URL is configured, else a path on this service.",
      example: "https://points.example.com/dashboard/receipts/tu_01JD4B8M2N3P4Q5R6S7T8V9W0X",
    }),
    points_expire_at: instant(
      "When its Points expire: what is left of them leaves the balance then. Null: they never expire.",
    ).nullable(),
  })
  .meta({ id: "TopUp", description: "A purchase of a bundle of Points." });

export const eventSchema = z
  .object({
    id: z.string().meta({
      description: "The event's id; also the `webhook-id` of its deliveries.",
      example: "evt_01JD4B8M2N3P4Q5R6S7T",
    }),
    type: z.enum(EVENT_TYPES).meta({ description: "What happened." }),
    sequence: z.number().int().min(1).meta({
      description:
        "1, 2, 3… per organisation, in the order the changes were committed, with no gap: a missing number is an event not yet received.",
      example: 42,
    }),
    created_at: instant("When the change was committed."),
    organization_id: z.string().meta({ example: "org_01JD4B8M2N3P4Q5R6S7T" }),
    data: z.record(z.string(), z.unknown()).meta({
      description:
        "For `top_up.*`: `top_up` (the TopUp as the API returns it) and `points_balance`. For `points.spent`: `spend` (the Spend as the API returns it) and `points_balance`. For `settings.updated`: `settings`. For `payment_methods.updated`: `change` (`added`, `removed`, `default`) and `payment_method_id` (for `default`, null when none is left), whether the change was made in the dashboard or at the billing provider.",
    }),
  })
  .meta({ id: "Event", description: "Something that changed in the organisation, as the feed and webhooks send it." });

export const paymentMethodSchema = z
  .object({
    id: z.string().meta({ description: "Pass it as `payment_source_id`.", example: "pm_1QabcDEF" }),
    label: z.string().meta({ example: "Visa •••• 4242" }),
    type: z.literal("card"),
    brand: z.string().meta({ example: "visa" }),
    last4: z.string().meta({ example: "4242" }),
    exp_month: z.number().int().min(1).max(12).meta({ example: 12 }),
    exp_year: z.number().int().meta({ example: 2030 }),
    is_default: z.boolean().meta({ description: "The method used when a purchase names none." }),
  })
  .meta({ id: "PaymentMethod", description: "A saved payment method a purchase can use." });

const limitUse = {
  used: z.number().int().min(0),
  remaining: z.number().int().min(0),
};

export const balanceSchema = z
  .object({
    points_balance: z.number().int().min(0).meta({ description: "Spendable Points.", example: 8350 }),
    points_held: z
      .number()
      .int()
      .min(0)
      .meta({ description: "Points a dispute holds: not spendable until it is settled.", example: 0 }),
    points_reserved: z
      .number()
      .int()
      .min(0)
      .meta({ description: "Points reserved by open holds: not spendable until captured or released.", example: 0 }),
    points_by_category: z
      .object({
        paid: z.number().int().min(0).meta({ description: "Points bought (top-ups and auto-recharges)." }),
        promotional: z
          .number()
          .int()
          .min(0)
          .meta({ description: "Points granted by the operator: never refunded, not counted by max_points_balance." }),
      })
      .meta({ description: "The spendable Points by category: paid + promotional = points_balance." }),
    expiring: z
      .array(
        z.object({
          points: z.number().int().min(1),
          category: z.enum(["paid", "promotional"]),
          expires_at: instant("When these Points leave the balance."),
        }),
      )
      .meta({
        description:
          "Lots with Points left that expire within 60 days, soonest first, at most 10; empty when none do. Points spend the soonest-expiring lot first.",
      }),
    limits: z
      .object({
        max_points_per_top_up: z.object({ limit: z.number().int() }).optional(),
        max_points_balance: z.object({ limit: z.number().int(), ...limitUse }).optional(),
        frequency_limit: z
          .object({ limit: z.number().int(), window_seconds: z.number().int(), ...limitUse })
          .optional()
          .meta({ description: "At most `limit` purchases in `window_seconds`." }),
        daily_points_limit: z
          .object({ limit: z.number().int(), ...limitUse })
          .optional()
          .meta({ description: "At most `limit` Points in a rolling 24 hours." }),
        key_daily_points: z
          .object({ limit: z.number().int(), ...limitUse })
          .optional()
          .meta({
            description: "The asking key's own cap: at most `limit` Points of its purchases in a rolling 24 hours.",
          }),
      })
      .meta({
        description: "Each limit the organisation has, with what is used and what remains; an absent key is no limit.",
      }),
    next_purchase_at: instant(
      "When the rate limits, and the asking key's own cap, let a 100-Point purchase through: now when one would pass.",
    ),
  })
  .meta({ id: "Balance" });

export const quoteSchema = z
  .object({
    points: bundleSchema,
    currency: currencySchema,
    amount: z
      .number()
      .int()
      .min(0)
      .meta({ description: "What the purchase would charge, in minor units.", example: 8900 }),
    payment_source_id: z.string().meta({ example: "pm_1QabcDEF" }),
    payment_method: paymentMethodSchema,
    points_balance_after: z
      .number()
      .int()
      .min(0)
      .meta({ description: "The spendable balance the purchase would leave." }),
    points_expire_at: instant(
      "When the Points it would buy would expire, were it bought now. Null: they would never expire.",
    ).nullable(),
  })
  .meta({ id: "Quote", description: "What a purchase with these terms would do now." });

export const spendSchema = z
  .object({
    id: z.string().meta({ example: "sp_01JD4B8M2N3P4Q5R6S7T" }),
    reference: z.string().max(REFERENCE_MAX_LENGTH).meta({
      description: "Your id for the spend, unique per organisation.",
      example: "job-8812",
    }),
    points: z
      .number()
      .int()
      .min(1)
      .max(1_000_000)
      .meta({ description: "Points taken from the balance.", example: 120 }),
    description: z
      .string()
      .nullable()
      .meta({ description: "What the Points paid for, as sent.", example: "Report generation" }),
    created_at: instant("When the Points were spent."),
  })
  .meta({ id: "Spend", description: "Points taken from the spendable balance." });

export const spendDataSchema = z.object({
  spend: spendSchema,
  points_balance: z
    .number()
    .int()
    .min(0)
    .meta({ description: "The organisation's spendable balance after the request." }),
});

export type TopUpJson = z.infer<typeof topUpSchema>;
export type SpendJson = z.infer<typeof spendSchema>;
export type PaymentMethodJson = z.infer<typeof paymentMethodSchema>;
export type BalanceJson = z.infer<typeof balanceSchema>;
export type QuoteJson = z.infer<typeof quoteSchema>;
