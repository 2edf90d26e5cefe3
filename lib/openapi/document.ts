/**
 * The OpenAPI 3.1 document of the API, generated from lib/points/api/: the zod schemas the routes
 * parse requests with (top-up-request.ts, top-up-list.ts, spend-request.ts, event-list.ts) and type
 * their answers by (schemas.ts). Served at GET /v3/openapi.json and rendered at /docs.
 */
import { z } from "zod";
import { createDocument, type ZodOpenApiOperationObject } from "zod-openapi";
import { eventListQuerySchema } from "@/lib/points/api/event-list";
import {
  balanceSchema,
  eventSchema,
  paymentMethodSchema,
  quoteSchema,
  spendDataSchema,
  spendSchema,
  topUpIdSchema,
  topUpSchema,
} from "@/lib/points/api/schemas";
import { spendListQuerySchema, spendRequestSchema } from "@/lib/points/api/spend-request";
import { topUpListQuerySchema } from "@/lib/points/api/top-up-list";
import { quoteRequestSchema, topUpRequestSchema } from "@/lib/points/api/top-up-request";
import { errorEnvelopeSchema, purchaseDataSchema, replayedHeader, requestIdHeader } from "./errors";
import {
  exampleBalance,
  exampleEvent,
  examplePaymentMethod,
  exampleQuote,
  exampleSpend,
  exampleTopUp,
} from "./examples";
import { KEY_CHECKS, operation, PROVIDER_REFUSALS, success, TERMS_CHECKS } from "./operation";

export const OPENAPI_PATH = "/v3/openapi.json";

const createTopUp = operation({
  operationId: "createTopUp",
  summary: "Buy a bundle of Points",
  description:
    "Charges a saved payment method for a bundle and credits its Points once paid. The `reference` makes it idempotent for the life of the organisation: the same request again answers the stored purchase and charges nothing. The checks run in the order of the error codes below; the first that fails answers. Needs a `purchase` key.",
  tags: ["Top-ups"],
  requestBody: {
    required: true,
    content: {
      "application/json": {
        schema: topUpRequestSchema,
        example: { points: 1000, currency: "EUR", payment_source_id: examplePaymentMethod.id, reference: "order-1042" },
      },
    },
  },
  responses: {
    "201": success(
      "Paid now: the Points are credited.",
      purchaseDataSchema,
      { top_up: exampleTopUp, points_balance: 9350 },
      replayedHeader,
    ),
    "200": success(
      "Paid by an earlier request with this reference: nothing was charged again.",
      purchaseDataSchema,
      {
        top_up: exampleTopUp,
        points_balance: 9350,
      },
      replayedHeader,
    ),
  },
  errors: [
    ...KEY_CHECKS,
    "insufficient_scope",
    ...TERMS_CHECKS,
    "reference_conflict",
    "purchase_in_progress",
    "payment_failed",
    "payment_action_required",
    "payment_unresolved",
  ],
});

const listTopUps = operation({
  operationId: "listTopUps",
  summary: "List purchases",
  description:
    "The organisation's purchases, newest first, a page at a time: pass the last id as `starting_after` while `has_more` is true.",
  tags: ["Top-ups"],
  requestParams: { query: topUpListQuerySchema },
  responses: {
    "200": success(
      "A page of purchases.",
      z.object({
        top_ups: z.array(topUpSchema),
        has_more: z.boolean().meta({ description: "Whether there are more past this page." }),
      }),
      { top_ups: [exampleTopUp], has_more: false },
    ),
  },
  errors: [...KEY_CHECKS, "invalid_request"],
});

const getTopUp = operation({
  operationId: "getTopUp",
  summary: "Read a purchase",
  description: "One of the organisation's purchases. Another organisation's id answers 404 like an unknown one.",
  tags: ["Top-ups"],
  requestParams: { path: z.object({ id: topUpIdSchema }) },
  responses: {
    "200": success("The purchase.", z.object({ top_up: topUpSchema }), { top_up: exampleTopUp }),
  },
  errors: [...KEY_CHECKS, "not_found"],
});

const listPaymentMethods = operation({
  operationId: "listPaymentMethods",
  summary: "List payment methods",
  description: "The saved payment methods a purchase can use, the default first. Pass an `id` as `payment_source_id`.",
  tags: ["Payment methods"],
  responses: {
    "200": success("The usable payment methods.", z.object({ payment_methods: z.array(paymentMethodSchema) }), {
      payment_methods: [examplePaymentMethod],
    }),
  },
  errors: [...KEY_CHECKS, ...PROVIDER_REFUSALS],
});

const listEvents = operation({
  operationId: "listEvents",
  summary: "List events",
  description:
    "The organisation's events after the sequence number `after`, oldest first; any key may read them. Sequences run 1, 2, 3… with no gap, so a receiver that was down, or that sees a gap in its webhooks, reads from its last number until `has_more` is false. Events are kept 30 days.",
  tags: ["Events"],
  requestParams: { query: eventListQuerySchema },
  responses: {
    "200": success(
      "A page of events.",
      z.object({
        events: z.array(eventSchema),
        has_more: z.boolean().meta({ description: "Whether there are more past this page." }),
      }),
      { events: [exampleEvent], has_more: false },
    ),
  },
  errors: [...KEY_CHECKS, "invalid_request", "events_expired"],
});

const createSpend = operation({
  operationId: "createSpend",
  summary: "Spend Points",
  description:
    "Takes Points from the spendable balance (Points held by a dispute cannot be spent), never more than it holds. The `reference` makes it idempotent: the same request again answers the stored spend and spends nothing; spends and purchases have references of their own. Needs a `purchase` or `spend` key.",
  tags: ["Spends"],
  requestBody: {
    required: true,
    content: {
      "application/json": {
        schema: spendRequestSchema,
        example: { points: 120, reference: "job-8812", description: "Report generation" },
      },
    },
  },
  responses: {
    "201": success("Spent: the Points are gone from the balance.", spendDataSchema, {
      spend: exampleSpend,
      points_balance: 880,
    }),
    "200": success(
      "Spent by an earlier request with this reference: nothing was spent again.",
      spendDataSchema,
      { spend: exampleSpend, points_balance: 880 },
      {
        "Idempotent-Replayed": {
          description: "`true`: this request spent nothing; `data.spend` is the one stored under this reference.",
          schema: { type: "string", enum: ["true"] },
        },
      },
    ),
  },
  errors: [
    ...KEY_CHECKS,
    "insufficient_scope",
    "request_too_large",
    "invalid_request",
    "reference_conflict",
    "insufficient_points",
  ],
  storedPurchase: false,
});

const listSpendsOperation = operation({
  operationId: "listSpends",
  summary: "List spends",
  description:
    "The organisation's spends, newest first, a page at a time: pass the last id as `starting_after` while `has_more` is true.",
  tags: ["Spends"],
  requestParams: { query: spendListQuerySchema },
  responses: {
    "200": success(
      "A page of spends.",
      z.object({
        spends: z.array(spendSchema),
        has_more: z.boolean().meta({ description: "Whether there are more past this page." }),
      }),
      { spends: [exampleSpend], has_more: false },
    ),
  },
  errors: [...KEY_CHECKS, "invalid_request"],
  storedPurchase: false,
});

const getBalance = operation({
  operationId: "getBalance",
  summary: "Read the balance and limits",
  description:
    "The spendable balance, the Points held by disputes, each configured limit with what is used and what remains, and when the rate limits let the next purchase through.",
  tags: ["Balance"],
  responses: {
    "200": success("The balance.", balanceSchema, exampleBalance),
  },
  errors: KEY_CHECKS,
});

const createQuote = operation({
  operationId: "createQuote",
  summary: "Quote a purchase",
  description:
    "What a purchase with these terms would do now: its price, the card it would charge, or the first check that would refuse it, with the purchase's own code and status. It charges nothing, writes nothing and counts toward no limit. A `read` key may quote.",
  tags: ["Top-ups"],
  requestBody: {
    required: true,
    content: {
      "application/json": {
        schema: quoteRequestSchema,
        example: { points: 1000, currency: "EUR" },
      },
    },
  },
  responses: {
    "200": success("The purchase would pass.", z.object({ quote: quoteSchema }), { quote: exampleQuote }),
  },
  errors: [...KEY_CHECKS, ...TERMS_CHECKS],
});

const getOpenApi: ZodOpenApiOperationObject = {
  operationId: "getOpenApiDocument",
  summary: "This document",
  description: "The OpenAPI 3.1 document of the API. Needs no key.",
  tags: ["Reference"],
  security: [],
  responses: {
    "200": {
      description: "The document.",
      headers: requestIdHeader,
      content: {
        "application/json": {
          schema: {
            type: "object",
            properties: { openapi: { type: "string", const: "3.1.0" } },
            required: ["openapi"],
          },
        },
      },
    },
  },
};

const DESCRIPTION = `Buy fixed bundles of prepaid Points for an organisation, charged to a saved payment method, and read what happened.

Every answer under \`/v3/points/\` is JSON in an envelope: \`{"status": "success", "data": {…}}\` or \`{"status": "error", "error": {"code", "message", "details"}}\`. Branch on \`error.code\`: it is stable. An error about a stored purchase also carries \`data.top_up\`.

Authenticate with an organisation's API key as \`Authorization: Bearer <key>\`. A \`purchase\` key may buy and spend; a \`spend\` key may spend but not buy; a \`read\` key may call every GET and the quote.

Money is in minor units of the currency (cents). Times are ISO 8601 in UTC.`;

let built: ReturnType<typeof createDocument> | undefined;

/** The document, built once per process. */
export function openApiDocument(): ReturnType<typeof createDocument> {
  built ??= createDocument(
    {
      openapi: "3.1.0",
      info: {
        title: "Points purchase API",
        version: "3",
        description: DESCRIPTION,
      },
      servers: [{ url: "/", description: "This service" }],
      tags: [
        { name: "Top-ups", description: "Buying Points, and the purchases made." },
        { name: "Payment methods", description: "The saved cards a purchase can charge." },
        { name: "Balance", description: "Points and limits." },
        { name: "Spends", description: "Points taken from the balance for what they pay for." },
        { name: "Events", description: "What changed, in order: the feed, and the body of each webhook." },
        { name: "Reference", description: "This document." },
      ],
      security: [{ apiKey: [] }],
      paths: {
        "/v3/points/top-ups": { post: createTopUp, get: listTopUps },
        "/v3/points/top-ups/{id}": { get: getTopUp },
        "/v3/points/payment-methods": { get: listPaymentMethods },
        "/v3/points/balance": { get: getBalance },
        "/v3/points/quotes": { post: createQuote },
        "/v3/points/spends": { post: createSpend, get: listSpendsOperation },
        "/v3/points/events": { get: listEvents },
        [OPENAPI_PATH]: { get: getOpenApi },
      },
      components: {
        securitySchemes: {
          apiKey: {
            type: "http",
            scheme: "bearer",
            description:
              "An organisation's API key, from the dashboard's API keys page or `npm run points -- key create`.",
          },
        },
        responses: {
          Error: {
            description: "Any error, whatever its code: what an unknown path or method under /v3 answers.",
            content: { "application/json": { schema: errorEnvelopeSchema } },
          },
        },
      },
    },
    {
      // zod bounds every integer to JavaScript's safe range; that says nothing to an integrator.
      override: ({ jsonSchema }: { jsonSchema: Record<string, unknown> }) => {
        if (jsonSchema.maximum === Number.MAX_SAFE_INTEGER) delete jsonSchema.maximum;
        if (jsonSchema.minimum === Number.MIN_SAFE_INTEGER) delete jsonSchema.minimum;
      },
    },
  );
  return built;
}
