/**
 * A realistic OpenAPI 3.1 document of part of this API, written by hand: the API reference page's
 * tests render it, so they do not change whenever the generated document does. It is shaped as
 * lib/openapi/document.ts's output: errors as `$ref`s to shared responses, nullable fields as type
 * arrays, examples on every body.
 */

const TOP_UP_EXAMPLE = {
  id: "tu_EvTZ9NpBS3UeZkEZhVoL",
  reference: "order-7f3a",
  points: 500,
  currency: "USD",
  amount: 4500,
  payment_source_id: "pm_1Q2w3E4r5T6y7U8i",
  status: "paid",
  failure: null,
  source: "api",
  created_at: "2026-11-22T12:00:00.000Z",
  paid_at: "2026-11-22T12:00:01.000Z",
  refunded_points: 0,
  refunded_amount: 0,
  dispute: null,
};

const FAILED_TOP_UP_EXAMPLE = {
  ...TOP_UP_EXAMPLE,
  status: "failed",
  failure: { code: "card_declined", message: "The card was declined." },
  paid_at: null,
};

function errorExample(code: string, message: string, details: Record<string, unknown> = {}) {
  return { status: "error", error: { code, message, details } };
}

function errorResponse(description: string, examples: Record<string, { summary: string; value: unknown }>) {
  return {
    description,
    content: { "application/json": { schema: { $ref: "#/components/schemas/Error" }, examples } },
  };
}

export function sampleOpenApiDocument() {
  return {
    openapi: "3.1.0",
    info: {
      title: "Points API",
      version: "3.0.0",
      description:
        "Buy fixed bundles of prepaid Points for your organisation, charged to a saved payment method.\n\n" +
        "Every answer is JSON: `{\"status\":\"success\",\"data\":{…}}` or `{\"status\":\"error\",\"error\":{…}}`, " +
        "with an `X-Request-Id` header. A purchase is paid only when `data.top_up.status` is `paid`.\n\n" +
        "- Send the same `reference` again to retry safely: it never charges twice.\n" +
        "- `currency` and `payment_source_id` apply to one purchase only.",
    },
    servers: [{ url: "http://localhost:3000", description: "npm run dev" }],
    tags: [
      { name: "Top-ups", description: "Buy bundles of Points and read purchases back." },
      { name: "Payment methods", description: "The saved cards an API purchase can use." },
    ],
    security: [{ apiKey: [] }],
    paths: {
      "/v3/points/top-ups": {
        post: {
          operationId: "createTopUp",
          summary: "Buy a bundle of Points",
          description:
            "Charges the saved payment method once for the bundle. The reference names the purchase: the same request again answers the stored purchase.",
          tags: ["Top-ups"],
          security: [{ apiKey: [] }],
          parameters: [{ $ref: "#/components/parameters/RequestId" }],
          requestBody: {
            required: true,
            content: {
              "application/json": {
                schema: { $ref: "#/components/schemas/TopUpRequest" },
                example: { points: 500, currency: "USD", payment_source_id: "pm_1Q2w3E4r5T6y7U8i", reference: "order-7f3a" },
              },
            },
          },
          responses: {
            "201": {
              description: "Paid now: the Points are credited.",
              headers: { "X-Request-Id": { $ref: "#/components/headers/RequestId" } },
              content: {
                "application/json": {
                  schema: { $ref: "#/components/schemas/TopUpAnswer" },
                  examples: {
                    paid: { summary: "Paid", value: { status: "success", data: { top_up: TOP_UP_EXAMPLE, points_balance: 1500 } } },
                  },
                },
              },
            },
            "200": {
              description: "Paid by an earlier request with this reference; nothing is charged again.",
              headers: {
                "Idempotent-Replayed": { description: "`true`: the answer is the stored purchase.", schema: { type: "string", enum: ["true"] } },
              },
              content: {
                "application/json": {
                  schema: { $ref: "#/components/schemas/TopUpAnswer" },
                  examples: { replayed: { summary: "Replayed", value: { status: "success", data: { top_up: TOP_UP_EXAMPLE, points_balance: 1500 } } } },
                },
              },
            },
            "402": { $ref: "#/components/responses/PaymentFailed" },
            "403": { $ref: "#/components/responses/Forbidden" },
            "409": errorResponse("The reference is used by another purchase, or the outcome is not known yet.", {
              reference_conflict: {
                summary: "Same reference, other parameters",
                value: errorExample("reference_conflict", "This reference was used for another purchase: use a new reference."),
              },
              payment_unresolved: {
                summary: "Outcome not known yet",
                value: errorExample("payment_unresolved", "The payment's outcome is not known yet: retry with the same reference."),
              },
            }),
            "422": { $ref: "#/components/responses/InvalidRequest" },
            "429": { $ref: "#/components/responses/RateLimited" },
          },
        },
        get: {
          operationId: "listTopUps",
          summary: "List purchases",
          description: "Your organisation's purchases, newest first, a page at a time.",
          tags: ["Top-ups"],
          parameters: [
            { name: "limit", in: "query", description: "How many to answer.", schema: { type: "integer", minimum: 1, maximum: 100, default: 20 } },
            { name: "starting_after", in: "query", description: "A top-up `id`: the page after it (older purchases).", schema: { type: "string" } },
            { name: "status", in: "query", description: "Only purchases in this state.", schema: { $ref: "#/components/schemas/TopUpStatus" } },
            {
              name: "created[gte]",
              in: "query",
              description: "Created at or after this time: an RFC 3339 date-time in UTC or with an offset.",
              schema: { type: "string", format: "date-time" },
              example: "2026-11-01T00:00:00Z",
            },
          ],
          responses: {
            "200": {
              description: "A page of purchases.",
              content: {
                "application/json": {
                  schema: {
                    type: "object",
                    required: ["status", "data"],
                    properties: {
                      status: { const: "success" },
                      data: {
                        type: "object",
                        required: ["top_ups", "has_more"],
                        properties: {
                          top_ups: { type: "array", items: { $ref: "#/components/schemas/TopUp" } },
                          has_more: { type: "boolean", description: "More purchases remain past this page." },
                        },
                      },
                    },
                  },
                  examples: {
                    page: { summary: "One page", value: { status: "success", data: { top_ups: [TOP_UP_EXAMPLE], has_more: false } } },
                  },
                },
              },
            },
            "403": { $ref: "#/components/responses/Forbidden" },
            "422": { $ref: "#/components/responses/InvalidRequest" },
          },
        },
      },
      "/v3/points/top-ups/{id}": {
        get: {
          operationId: "getTopUp",
          summary: "Read one purchase",
          description: "Another organisation's id, an unknown one and a malformed one all answer `404 not_found`.",
          tags: ["Top-ups"],
          parameters: [
            {
              name: "id",
              in: "path",
              required: true,
              description: "The purchase's `id`.",
              schema: { type: "string", pattern: "^tu_[A-Za-z0-9]+$" },
              example: "tu_EvTZ9NpBS3UeZkEZhVoL",
            },
          ],
          responses: {
            "200": {
              description: "The purchase.",
              content: {
                "application/json": {
                  schema: { $ref: "#/components/schemas/TopUpAnswer" },
                  examples: { found: { summary: "Found", value: { status: "success", data: { top_up: TOP_UP_EXAMPLE } } } },
                },
              },
            },
            "403": { $ref: "#/components/responses/Forbidden" },
            "404": { $ref: "#/components/responses/NotFound" },
          },
        },
      },
      "/v3/points/payment-methods": {
        get: {
          operationId: "listPaymentMethods",
          summary: "List payment methods",
          description: "The saved methods an API purchase can use, the default first. Expired cards are not listed.",
          tags: ["Payment methods"],
          responses: {
            "200": {
              description: "The usable payment methods.",
              content: {
                "application/json": {
                  schema: {
                    type: "object",
                    properties: {
                      status: { const: "success" },
                      data: {
                        type: "object",
                        required: ["payment_methods"],
                        properties: { payment_methods: { type: "array", items: { $ref: "#/components/schemas/PaymentMethod" } } },
                      },
                    },
                  },
                  examples: {
                    one: {
                      summary: "One card",
                      value: {
                        status: "success",
                        data: {
                          payment_methods: [
                            {
                              id: "pm_1Q2w3E4r5T6y7U8i",
                              label: "Visa •••• 4242",
                              type: "card",
                              brand: "visa",
                              last4: "4242",
                              exp_month: 12,
                              exp_year: 2030,
                              is_default: true,
                            },
                          ],
                        },
                      },
                    },
                  },
                },
              },
            },
            "403": { $ref: "#/components/responses/Forbidden" },
            "502": errorResponse("The billing provider cannot answer for now: retry after `Retry-After` seconds.", {
              unavailable: {
                summary: "Provider unavailable",
                value: errorExample("payment_methods_unavailable", "The payment methods cannot be listed right now: try again shortly."),
              },
            }),
          },
        },
      },
    },
    components: {
      securitySchemes: {
        apiKey: {
          type: "http",
          scheme: "bearer",
          description: "Your organisation's API key. Admins create keys in the dashboard, under API keys.",
        },
      },
      parameters: {
        RequestId: {
          name: "X-Request-Id",
          in: "header",
          description: "Echoed back when it is 1-100 characters of `A-Z a-z 0-9 . _ : -`; otherwise a new one is made.",
          schema: { type: "string", maxLength: 100 },
        },
      },
      headers: {
        RequestId: { description: "This request's id: yours when well-formed, otherwise a new one.", schema: { type: "string" } },
      },
      schemas: {
        TopUpStatus: {
          type: "string",
          enum: ["pending", "processing", "awaiting_payment", "failed", "paid"],
          description: "`pending` and `processing` are not known yet; `paid` and `failed` are final.",
        },
        Currency: { type: "string", enum: ["USD", "GBP", "EUR"] },
        TopUpRequest: {
          type: "object",
          additionalProperties: false,
          required: ["points", "reference"],
          properties: {
            points: { type: "integer", enum: [100, 250, 500, 1000, 2500, 5000, 7500], description: "The bundle to buy." },
            currency: {
              anyOf: [{ $ref: "#/components/schemas/Currency" }, { type: "null" }],
              description: "Omitted: the organisation's saved currency.",
            },
            payment_source_id: {
              type: ["string", "null"],
              minLength: 1,
              description: "A saved method's `id`; omitted: the default, or the only saved one.",
            },
            reference: {
              type: "string",
              minLength: 1,
              maxLength: 100,
              pattern: "^[A-Za-z0-9._:-]+$",
              description: "Names the purchase: unique per purchase in your organisation.",
            },
          },
        },
        Failure: {
          type: "object",
          required: ["code", "message"],
          properties: {
            code: { type: "string", description: "Why, e.g. `card_declined`." },
            message: { type: "string" },
          },
        },
        TopUp: {
          type: "object",
          description: "One purchase of a bundle.",
          required: ["id", "reference", "points", "currency", "amount", "payment_source_id", "status", "failure", "source", "created_at", "paid_at"],
          properties: {
            id: { type: "string", description: "Prefixed `tu_`.", examples: ["tu_EvTZ9NpBS3UeZkEZhVoL"] },
            reference: { type: "string", description: "Yours." },
            points: { type: "integer", description: "The bundle." },
            currency: { $ref: "#/components/schemas/Currency" },
            amount: { type: "integer", description: "The price in minor units (cents, pence)." },
            payment_source_id: { type: "string", description: "The method charged." },
            status: { $ref: "#/components/schemas/TopUpStatus" },
            failure: {
              anyOf: [{ $ref: "#/components/schemas/Failure" }, { type: "null" }],
              description: "When `failed` or `awaiting_payment`, else null.",
            },
            source: { type: "string", enum: ["api", "dashboard"] },
            created_at: { type: "string", format: "date-time" },
            paid_at: { type: ["string", "null"], format: "date-time", description: "Null until paid." },
            refunded_points: { type: "integer", description: "Points refunds have taken back; 0 when none." },
            refunded_amount: { type: "integer", description: "Money refunded, in the minor units of `amount`." },
            dispute: {
              type: ["object", "null"],
              description: "The cardholder's dispute of the payment, if any.",
              properties: {
                status: { type: "string", enum: ["needs_response", "under_review", "won", "lost"] },
                points: { type: "integer" },
              },
            },
          },
        },
        TopUpAnswer: {
          type: "object",
          required: ["status", "data"],
          properties: {
            status: { const: "success" },
            data: {
              type: "object",
              required: ["top_up"],
              properties: {
                top_up: { $ref: "#/components/schemas/TopUp" },
                points_balance: { type: "integer", description: "The balance after the request." },
              },
            },
          },
        },
        PaymentMethod: {
          type: "object",
          required: ["id", "label", "type", "is_default"],
          properties: {
            id: { type: "string" },
            label: { type: "string", examples: ["Visa •••• 4242"] },
            type: { type: "string", enum: ["card"] },
            brand: { type: ["string", "null"] },
            last4: { type: ["string", "null"] },
            exp_month: { type: ["integer", "null"], minimum: 1, maximum: 12 },
            exp_year: { type: ["integer", "null"] },
            is_default: { type: "boolean" },
          },
        },
        Error: {
          type: "object",
          description: "The error envelope.",
          required: ["status", "error"],
          properties: {
            status: { const: "error" },
            error: {
              type: "object",
              required: ["code", "message", "details"],
              properties: {
                code: { type: "string", description: "What went wrong, in snake_case." },
                message: { type: "string", description: "One sentence a person can act on." },
                details: { type: "object", description: "`fields` for validation errors; `limit` for limits." },
              },
            },
            data: {
              type: "object",
              description: "Errors about an existing purchase also carry it.",
              properties: {
                top_up: { $ref: "#/components/schemas/TopUp" },
                points_balance: { type: "integer" },
              },
            },
          },
        },
      },
      responses: {
        Forbidden: errorResponse("The key is missing, unknown or revoked, or API purchases are not enabled.", {
          invalid_api_key: { summary: "Bad key", value: errorExample("invalid_api_key", "The API key is missing or not valid.") },
          api_purchases_disabled: {
            summary: "Purchases disabled",
            value: errorExample("api_purchases_disabled", "API Point purchases are not enabled: an admin enables them in Settings."),
          },
        }),
        NotFound: errorResponse("No purchase with this id belongs to your organisation.", {
          not_found: { summary: "Not found", value: errorExample("not_found", "No top-up with this id was found.") },
        }),
        PaymentFailed: {
          description: "The payment failed, or awaits the cardholder; `data.top_up` is the purchase.",
          content: {
            "application/json": {
              schema: { $ref: "#/components/schemas/Error" },
              examples: {
                payment_failed: {
                  summary: "Declined",
                  value: {
                    ...errorExample("payment_failed", "The card was declined: use another payment method and a new reference."),
                    data: { top_up: FAILED_TOP_UP_EXAMPLE, points_balance: 1000 },
                  },
                },
              },
            },
          },
        },
        InvalidRequest: errorResponse("The body or query is invalid: every bad field is named in `details.fields`.", {
          invalid_request: {
            summary: "Bad fields",
            value: errorExample("invalid_request", "The request is invalid: check `points` and send it again.", {
              fields: { points: "must be one of 100, 250, 500, 1000, 2500, 5000, 7500" },
            }),
          },
        }),
        RateLimited: {
          description: "Too many purchases for now: retry after `Retry-After` seconds.",
          headers: { "Retry-After": { description: "Whole seconds to wait.", required: true, schema: { type: "integer" } } },
          content: {
            "application/json": {
              schema: { $ref: "#/components/schemas/Error" },
              examples: {
                frequency_limit_reached: {
                  summary: "Frequency limit",
                  value: errorExample("frequency_limit_reached", "Too many purchases in a short time: retry in 42 seconds."),
                },
              },
            },
          },
        },
      },
    },
  };
}
