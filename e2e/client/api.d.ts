// Generated from GET /v3/openapi.json by `npm run openapi:types` (openapi-typescript). Do not edit.
export type paths = {
    "/v3/points/top-ups": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List purchases
         * @description The organisation's purchases, newest first, a page at a time: pass the last id as `starting_after` while `has_more` is true.
         */
        get: operations["listTopUps"];
        put?: never;
        /**
         * Buy a bundle of Points
         * @description Charges a saved payment method for a bundle and credits its Points once paid. The `reference` makes it idempotent for the life of the organisation: the same request again answers the stored purchase and charges nothing. The checks run in the order of the error codes below; the first that fails answers. Needs a `purchase` key.
         */
        post: operations["createTopUp"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v3/points/top-ups/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read a purchase
         * @description One of the organisation's purchases. Another organisation's id answers 404 like an unknown one.
         */
        get: operations["getTopUp"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v3/points/payment-methods": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List payment methods
         * @description The saved payment methods a purchase can use, the default first. Pass an `id` as `payment_source_id`.
         */
        get: operations["listPaymentMethods"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v3/points/balance": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read the balance and limits
         * @description The spendable balance, the Points held by disputes, each configured limit with what is used and what remains, and when the rate limits let the next purchase through.
         */
        get: operations["getBalance"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v3/points/quotes": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Quote a purchase
         * @description What a purchase with these terms would do now: its price, the card it would charge, or the first check that would refuse it, with the purchase's own code and status. It charges nothing, writes nothing and counts toward no limit. A `read` key may quote.
         */
        post: operations["createQuote"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v3/points/spends": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List spends
         * @description The organisation's spends, newest first, a page at a time: pass the last id as `starting_after` while `has_more` is true.
         */
        get: operations["listSpends"];
        put?: never;
        /**
         * Spend Points
         * @description Takes Points from the spendable balance (Points held by a dispute cannot be spent), never more than it holds. The `reference` makes it idempotent: the same request again answers the stored spend and spends nothing; spends and purchases have references of their own. Needs a `purchase` or `spend` key.
         */
        post: operations["createSpend"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v3/points/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List events
         * @description The organisation's events after the sequence number `after`, oldest first; any key may read them. Sequences run 1, 2, 3… with no gap, so a receiver that was down, or that sees a gap in its webhooks, reads from its last number until `has_more` is false. Events are kept 30 days.
         */
        get: operations["listEvents"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v3/openapi.json": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * This document
         * @description The OpenAPI 3.1 document of the API. Needs no key.
         */
        get: operations["getOpenApiDocument"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
};
export type webhooks = Record<string, never>;
export type components = {
    schemas: {
        TopUpRequest: {
            points: components["schemas"]["Bundle"];
            /** @description Omit (or null) to use the organisation's saved currency. */
            currency?: components["schemas"]["Currency"] | null;
            /**
             * @description A saved payment method's id (GET /v3/points/payment-methods); omit (or null) to use the default.
             * @example pm_1QabcDEF
             */
            payment_source_id?: string | null;
            /**
             * @description Your id for this purchase, unique per organisation: retrying with it never charges twice. References starting with `auto-recharge:` are the service's own auto-recharges.
             * @example order-1042
             */
            reference: string;
        };
        /**
         * @description A bundle of Points: one of the fixed sizes on sale.
         * @example 1000
         * @enum {number}
         */
        Bundle: 100 | 250 | 500 | 1000 | 2500 | 5000 | 7500;
        /**
         * @description An ISO 4217 currency the service sells in.
         * @example EUR
         * @enum {string}
         */
        Currency: "USD" | "GBP" | "EUR";
        QuoteRequest: {
            points: components["schemas"]["Bundle"];
            /** @description Omit (or null) to use the organisation's saved currency. */
            currency?: components["schemas"]["Currency"] | null;
            /**
             * @description A saved payment method's id (GET /v3/points/payment-methods); omit (or null) to use the default.
             * @example pm_1QabcDEF
             */
            payment_source_id?: string | null;
        };
        SpendRequest: {
            /**
             * @description Points to take from the spendable balance (held Points cannot be spent).
             * @example 120
             */
            points: number;
            /**
             * @description Your id for this spend, unique per organisation: retrying with it never spends twice. Spends and top-ups have references of their own.
             * @example job-8812
             */
            reference: string;
            /**
             * @description What the Points paid for, as you want to read it later; omit (or null) for none.
             * @example Report generation
             */
            description?: string | null;
        };
        Error: {
            /** @constant */
            status: "error";
            error: {
                /**
                 * @description Stable, snake_case: branch on it.
                 * @enum {string}
                 */
                code: "invalid_api_key" | "not_available" | "api_purchases_disabled" | "insufficient_scope" | "invalid_request" | "currency_required" | "payment_methods_unavailable" | "database_unavailable" | "billing_customer_missing" | "billing_credentials_refused" | "billing_provider_mismatch" | "invalid_payment_method" | "payment_method_required" | "no_payment_method" | "reference_conflict" | "insufficient_points" | "purchase_in_progress" | "payment_failed" | "payment_action_required" | "payment_unresolved" | "limit_exceeded" | "frequency_limit_reached" | "daily_limit_reached" | "key_daily_limit_reached" | "currency_not_available" | "request_too_large" | "not_found" | "events_expired" | "method_not_allowed" | "unauthorized" | "forbidden" | "internal_error";
                /** @description One sentence a person can act on. */
                message: string;
                /** @description Facts about the error, such as `fields` or `limit`. */
                details: {
                    [key: string]: unknown;
                };
            };
            data?: {
                top_up: components["schemas"]["TopUp"];
                /** @description The organisation's spendable balance after the request. */
                points_balance: number;
            };
        };
        /** @description A purchase of a bundle of Points. */
        TopUp: {
            /**
             * @description A purchase's id.
             * @example tu_01JD4B8M2N3P4Q5R6S7T8V9W0X
             */
            id: string;
            /**
             * @description The caller's reference, unique per purchase.
             * @example order-1042
             */
            reference: string;
            points: components["schemas"]["Bundle"];
            currency: components["schemas"]["Currency"];
            /**
             * @description What was charged, in minor units, as the billing provider priced it.
             * @example 8900
             */
            amount: number;
            /**
             * @description The payment method charged.
             * @example pm_1QabcDEF
             */
            payment_source_id: string;
            /**
             * @description `pending` and `processing` are unresolved; `awaiting_payment` waits for the cardholder; `paid` and `failed` are final. It stays `paid` whatever happens after the charge.
             * @enum {string}
             */
            status: "pending" | "processing" | "awaiting_payment" | "failed" | "paid";
            /** @description Why it is `failed` or `awaiting_payment`; null otherwise. */
            failure: {
                /**
                 * @description The provider's decline or action code.
                 * @example card_declined
                 */
                code: string;
                /** @description What happened, for a person. */
                message: string;
            } | null;
            /**
             * @description Where the purchase was made.
             * @enum {string}
             */
            source: "api" | "dashboard" | "auto_recharge";
            /**
             * Format: date-time
             * @description When the purchase was made. ISO 8601, UTC.
             * @example 2026-11-24T09:30:00.000Z
             */
            created_at: string;
            paid_at: string | null;
            /**
             * @description Points taken back by refunds.
             * @example 0
             */
            refunded_points: number;
            /**
             * @description Money refunded, in minor units.
             * @example 0
             */
            refunded_amount: number;
            dispute: components["schemas"]["Dispute"] | null;
            /**
             * @description The purchase's receipt in the dashboard (signed-in members of the organisation), once it is paid; null before. Absolute when the service's public URL is configured, else a path on this service.
             * @example https://points.example.com/dashboard/receipts/tu_01JD4B8M2N3P4Q5R6S7T8V9W0X
             */
            receipt_url: string | null;
            points_expire_at: string | null;
        };
        /** @description A cardholder's dispute of the purchase's charge. */
        Dispute: {
            /**
             * @description The bank's decision, or `open` while it has none.
             * @enum {string}
             */
            status: "open" | "won" | "lost";
            /** @description The Points the dispute concerns. */
            points: number;
            /**
             * @description Where those Points stand: `held` (out of the spendable balance until the decision), `removed`, or `released` back to the balance.
             * @enum {string}
             */
            points_state: "held" | "removed" | "released";
            opened_at: string | null;
            closed_at: string | null;
        };
        /** @description A saved payment method a purchase can use. */
        PaymentMethod: {
            /**
             * @description Pass it as `payment_source_id`.
             * @example pm_1QabcDEF
             */
            id: string;
            /** @example Visa •••• 4242 */
            label: string;
            /** @constant */
            type: "card";
            /** @example visa */
            brand: string;
            /** @example 4242 */
            last4: string;
            /** @example 12 */
            exp_month: number;
            /** @example 2030 */
            exp_year: number;
            /** @description The method used when a purchase names none. */
            is_default: boolean;
        };
        Balance: {
            /**
             * @description Spendable Points.
             * @example 8350
             */
            points_balance: number;
            /**
             * @description Points a dispute holds: not spendable until it is settled.
             * @example 0
             */
            points_held: number;
            /**
             * @description Points reserved by open holds: not spendable until captured or released.
             * @example 0
             */
            points_reserved: number;
            /** @description The spendable Points by category: paid + promotional = points_balance. */
            points_by_category: {
                /** @description Points bought (top-ups and auto-recharges). */
                paid: number;
                /** @description Points granted by the operator: never refunded, not counted by max_points_balance. */
                promotional: number;
            };
            /** @description Lots with Points left that expire within 60 days, soonest first, at most 10; empty when none do. Points spend the soonest-expiring lot first. */
            expiring: {
                points: number;
                /** @enum {string} */
                category: "paid" | "promotional";
                /**
                 * Format: date-time
                 * @description When these Points leave the balance. ISO 8601, UTC.
                 * @example 2026-11-24T09:30:00.000Z
                 */
                expires_at: string;
            }[];
            /** @description Each limit the organisation has, with what is used and what remains; an absent key is no limit. */
            limits: {
                max_points_per_top_up?: {
                    limit: number;
                };
                max_points_balance?: {
                    limit: number;
                    used: number;
                    remaining: number;
                };
                /** @description At most `limit` purchases in `window_seconds`. */
                frequency_limit?: {
                    limit: number;
                    window_seconds: number;
                    used: number;
                    remaining: number;
                };
                /** @description At most `limit` Points in a rolling 24 hours. */
                daily_points_limit?: {
                    limit: number;
                    used: number;
                    remaining: number;
                };
                /** @description The asking key's own cap: at most `limit` Points of its purchases in a rolling 24 hours. */
                key_daily_points?: {
                    limit: number;
                    used: number;
                    remaining: number;
                };
            };
            /**
             * Format: date-time
             * @description When the rate limits, and the asking key's own cap, let a 100-Point purchase through: now when one would pass. ISO 8601, UTC.
             * @example 2026-11-24T09:30:00.000Z
             */
            next_purchase_at: string;
        };
        /** @description What a purchase with these terms would do now. */
        Quote: {
            points: components["schemas"]["Bundle"];
            currency: components["schemas"]["Currency"];
            /**
             * @description What the purchase would charge, in minor units.
             * @example 8900
             */
            amount: number;
            /** @example pm_1QabcDEF */
            payment_source_id: string;
            payment_method: components["schemas"]["PaymentMethod"];
            /** @description The spendable balance the purchase would leave. */
            points_balance_after: number;
            points_expire_at: string | null;
        };
        /** @description Points taken from the spendable balance. */
        Spend: {
            /** @example sp_01JD4B8M2N3P4Q5R6S7T */
            id: string;
            /**
             * @description Your id for the spend, unique per organisation.
             * @example job-8812
             */
            reference: string;
            /**
             * @description Points taken from the balance.
             * @example 120
             */
            points: number;
            /**
             * @description What the Points paid for, as sent.
             * @example Report generation
             */
            description: string | null;
            /**
             * Format: date-time
             * @description When the Points were spent. ISO 8601, UTC.
             * @example 2026-11-24T09:30:00.000Z
             */
            created_at: string;
        };
        /** @description Something that changed in the organisation, as the feed and webhooks send it. */
        Event: {
            /**
             * @description The event's id; also the `webhook-id` of its deliveries.
             * @example evt_01JD4B8M2N3P4Q5R6S7T
             */
            id: string;
            /**
             * @description What happened.
             * @enum {string}
             */
            type: "top_up.paid" | "top_up.failed" | "top_up.awaiting_payment" | "top_up.unresolved" | "top_up.refunded" | "top_up.dispute_opened" | "top_up.dispute_closed" | "payment_methods.updated" | "settings.updated" | "points.spent" | "balance.low" | "auto_recharge.failed" | "points.expiring" | "points.expired";
            /**
             * @description 1, 2, 3… per organisation, in the order the changes were committed, with no gap: a missing number is an event not yet received.
             * @example 42
             */
            sequence: number;
            /**
             * Format: date-time
             * @description When the change was committed. ISO 8601, UTC.
             * @example 2026-11-24T09:30:00.000Z
             */
            created_at: string;
            /** @example org_01JD4B8M2N3P4Q5R6S7T */
            organization_id: string;
            /** @description For `top_up.*`: `top_up` (the TopUp as the API returns it) and `points_balance`. For `points.spent`: `spend` (the Spend as the API returns it) and `points_balance`. For `settings.updated`: `settings`. For `payment_methods.updated`: `change` (`added`, `removed`, `default`) and `payment_method_id` (for `default`, null when none is left), whether the change was made in the dashboard or at the billing provider. */
            data: {
                [key: string]: unknown;
            };
        };
    };
    responses: {
        /** @description Any error, whatever its code: what an unknown path or method under /v3 answers. */
        Error: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
    };
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
};
export type $defs = Record<string, never>;
export interface operations {
    listTopUps: {
        parameters: {
            query?: {
                /** @description How many to answer, 1 to 100. */
                limit?: number;
                /** @description A top-up id: answer the ones older than it (the next page). */
                starting_after?: string;
                /** @description A top-up id: answer the ones newer than it (the previous page). Not with `starting_after`. */
                ending_before?: string;
                /** @description Only the purchase with this reference (exact, case-sensitive). */
                reference?: string;
                /** @description Only purchases in this status. */
                status?: "pending" | "processing" | "awaiting_payment" | "failed" | "paid";
                /** @description Only purchases made here. */
                source?: "api" | "dashboard" | "auto_recharge";
                /** @description Only purchases made at or after this time: an RFC 3339 date-time in UTC or with an offset, such as `2026-11-22T12:00:00Z` or `2026-11-22T13:00:00+01:00` (in a URL, `+` is `%2B`); seconds may be left out. */
                "created[gte]"?: string;
                /** @description Only purchases made before this time: an RFC 3339 date-time in UTC or with an offset, such as `2026-11-22T12:00:00Z` or `2026-11-22T13:00:00+01:00` (in a URL, `+` is `%2B`); seconds may be left out. */
                "created[lt]"?: string;
            };
            header?: {
                /** @description Your id for this request, echoed back; one is made when absent or malformed. */
                "X-Request-Id"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of purchases. */
            200: {
                headers: {
                    /** @description The request's id: yours when you sent a well-formed one. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "success",
                     *       "data": {
                     *         "top_ups": [
                     *           {
                     *             "id": "tu_01JD4B8M2N3P4Q5R6S7T8V9W0X",
                     *             "reference": "order-1042",
                     *             "points": 1000,
                     *             "currency": "EUR",
                     *             "amount": 8900,
                     *             "payment_source_id": "pm_1QabcDEF",
                     *             "status": "paid",
                     *             "failure": null,
                     *             "source": "api",
                     *             "created_at": "2026-11-24T09:30:00.000Z",
                     *             "paid_at": "2026-11-24T09:30:01.000Z",
                     *             "refunded_points": 0,
                     *             "refunded_amount": 0,
                     *             "dispute": null,
                     *             "receipt_url": "https://points.example.com/dashboard/receipts/tu_01JD4B8M2N3P4Q5R6S7T8V9W0X",
                     *             "points_expire_at": null
                     *           }
                     *         ],
                     *         "has_more": false
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @constant */
                        status: "success";
                        data: {
                            top_ups: components["schemas"]["TopUp"][];
                            /** @description Whether there are more past this page. */
                            has_more: boolean;
                        };
                    };
                };
            };
            /**
             * @description `invalid_api_key`: No `Authorization: Bearer <key>`, or the key is unknown or revoked.
             *
             *     `api_purchases_disabled`: An admin has not enabled API purchases in the dashboard.
             */
            403: {
                headers: {
                    /** @description The request's id: yours when you sent a well-formed one. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "error";
                        error: {
                            /**
                             * @description Stable, snake_case: branch on it.
                             * @enum {string}
                             */
                            code: "invalid_api_key" | "api_purchases_disabled";
                            /** @description One sentence a person can act on. */
                            message: string;
                            /** @description Facts about the error, such as `fields` or `limit`. */
                            details: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description `not_available`: The organisation is not eligible for API purchases (an operator setting). */
            404: {
                headers: {
                    /** @description The request's id: yours when you sent a well-formed one. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "error";
                        error: {
                            /**
                             * @description Stable, snake_case: branch on it.
                             * @enum {string}
                             */
                            code: "not_available";
                            /** @description One sentence a person can act on. */
                            message: string;
                            /** @description Facts about the error, such as `fields` or `limit`. */
                            details: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description `invalid_request`: The body or query is invalid: `details.fields` names every offending field and why. */
            422: {
                headers: {
                    /** @description The request's id: yours when you sent a well-formed one. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "error";
                        error: {
                            /**
                             * @description Stable, snake_case: branch on it.
                             * @enum {string}
                             */
                            code: "invalid_request";
                            /** @description One sentence a person can act on. */
                            message: string;
                            /** @description Facts about the error, such as `fields` or `limit`. */
                            details: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description `database_unavailable`: The service could not reach its database for a moment (a restart); retry with the same reference after `Retry-After` seconds, it never charges twice. */
            502: {
                headers: {
                    /** @description The request's id: yours when you sent a well-formed one. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "error";
                        error: {
                            /**
                             * @description Stable, snake_case: branch on it.
                             * @enum {string}
                             */
                            code: "database_unavailable";
                            /** @description One sentence a person can act on. */
                            message: string;
                            /** @description Facts about the error, such as `fields` or `limit`. */
                            details: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
        };
    };
    createTopUp: {
        parameters: {
            query?: never;
            header?: {
                /** @description Your id for this request, echoed back; one is made when absent or malformed. */
                "X-Request-Id"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "points": 1000,
                 *       "currency": "EUR",
                 *       "payment_source_id": "pm_1QabcDEF",
                 *       "reference": "order-1042"
                 *     }
                 */
                "application/json": components["schemas"]["TopUpRequest"];
            };
        };
        responses: {
            /** @description Paid by an earlier request with this reference: nothing was charged again. */
            200: {
                headers: {
                    /** @description The request's id: yours when you sent a well-formed one. */
                    "X-Request-Id": string;
                    /** @description `true` when this request made no new purchase: `data.top_up` is the one stored under this reference. */
                    "Idempotent-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "success",
                     *       "data": {
                     *         "top_up": {
                     *           "id": "tu_01JD4B8M2N3P4Q5R6S7T8V9W0X",
                     *           "reference": "order-1042",
                     *           "points": 1000,
                     *           "currency": "EUR",
                     *           "amount": 8900,
                     *           "payment_source_id": "pm_1QabcDEF",
                     *           "status": "paid",
                     *           "failure": null,
                     *           "source": "api",
                     *           "created_at": "2026-11-24T09:30:00.000Z",
                     *           "paid_at": "2026-11-24T09:30:01.000Z",
                     *           "refunded_points": 0,
                     *           "refunded_amount": 0,
                     *           "dispute": null,
                     *           "receipt_url": "https://points.example.com/dashboard/receipts/tu_01JD4B8M2N3P4Q5R6S7T8V9W0X",
                     *           "points_expire_at": null
                     *         },
                     *         "points_balance": 9350
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @constant */
                        status: "success";
                        data: {
                            top_up: components["schemas"]["TopUp"];
                            /** @description The organisation's spendable balance after the request. */
                            points_balance: number;
                        };
                    };
                };
            };
            /** @description Paid now: the Points are credited. */
            201: {
                headers: {
                    /** @description The request's id: yours when you sent a well-formed one. */
                    "X-Request-Id": string;
                    /** @description `true` when this request made no new purchase: `data.top_up` is the one stored under this reference. */
                    "Idempotent-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "success",
                     *       "data": {
                     *         "top_up": {
                     *           "id": "tu_01JD4B8M2N3P4Q5R6S7T8V9W0X",
                     *           "reference": "order-1042",
                     *           "points": 1000,
                     *           "currency": "EUR",
                     *           "amount": 8900,
                     *           "payment_source_id": "pm_1QabcDEF",
                     *           "status": "paid",
                     *           "failure": null,
                     *           "source": "api",
                     *           "created_at": "2026-11-24T09:30:00.000Z",
                     *           "paid_at": "2026-11-24T09:30:01.000Z",
                     *           "refunded_points": 0,
                     *           "refunded_amount": 0,
                     *           "dispute": null,
                     *           "receipt_url": "https://points.example.com/dashboard/receipts/tu_01JD4B8M2N3P4Q5R6S7T8V9W0X",
                     *           "points_expire_at": null
                     *         },
                     *         "points_balance": 9350
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @constant */
                        status: "success";
                        data: {
                            top_up: components["schemas"]["TopUp"];
                            /** @description The organisation's spendable balance after the request. */
                            points_balance: number;
                        };
                    };
                };
            };
            /**
             * @description `payment_failed`: The payment failed; nothing was charged. `data.top_up.failure` says why.
             *
             *     `payment_action_required`: The cardholder must authenticate in the dashboard, which credits the Points at once; a retry with the same reference then answers the paid purchase.
             */
            402: {
                headers: {
                    /** @description The request's id: yours when you sent a well-formed one. */
                    "X-Request-Id": string;
                    /** @description `true` when this request made no new purchase: `data.top_up` is the one stored under this reference. */
                    "Idempotent-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "error";
                        error: {
                            /**
                             * @description Stable, snake_case: branch on it.
                             * @enum {string}
                             */
                            code: "payment_failed" | "payment_action_required";
                            /** @description One sentence a person can act on. */
                            message: string;
                            /** @description Facts about the error, such as `fields` or `limit`. */
                            details: {
                                [key: string]: unknown;
                            };
                        };
                        data: {
                            top_up: components["schemas"]["TopUp"];
                            /** @description The organisation's spendable balance after the request. */
                            points_balance: number;
                        };
                    };
                };
            };
            /**
             * @description `invalid_api_key`: No `Authorization: Bearer <key>`, or the key is unknown or revoked.
             *
             *     `api_purchases_disabled`: An admin has not enabled API purchases in the dashboard.
             *
             *     `insufficient_scope`: The key's scope does not allow this: buying needs a `purchase` key, spending a `purchase` or `spend` key.
             */
            403: {
                headers: {
                    /** @description The request's id: yours when you sent a well-formed one. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "error";
                        error: {
                            /**
                             * @description Stable, snake_case: branch on it.
                             * @enum {string}
                             */
                            code: "invalid_api_key" | "api_purchases_disabled" | "insufficient_scope";
                            /** @description One sentence a person can act on. */
                            message: string;
                            /** @description Facts about the error, such as `fields` or `limit`. */
                            details: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description `not_available`: The organisation is not eligible for API purchases (an operator setting). */
            404: {
                headers: {
                    /** @description The request's id: yours when you sent a well-formed one. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "error";
                        error: {
                            /**
                             * @description Stable, snake_case: branch on it.
                             * @enum {string}
                             */
                            code: "not_available";
                            /** @description One sentence a person can act on. */
                            message: string;
                            /** @description Facts about the error, such as `fields` or `limit`. */
                            details: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /**
             * @description `billing_customer_missing`: The billing provider no longer knows the organisation's customer; the service's operator must relink it.
             *
             *     `billing_credentials_refused`: The billing provider refuses the service's own API key; the service's operator must fix it.
             *
             *     `limit_exceeded`: An organisation limit refuses it: `details.limit` is `max_points_per_top_up` or `max_points_balance`.
             *
             *     `reference_conflict`: The reference was used with other terms; `data.top_up` is the stored purchase (for a spend, `details.spend` is the stored spend).
             *
             *     `purchase_in_progress`: Another request is working on this reference right now; retry in a few seconds.
             *
             *     `payment_unresolved`: The payment's outcome is not known yet; retry with the same reference, it never charges twice.
             */
            409: {
                headers: {
                    /** @description The request's id: yours when you sent a well-formed one. */
                    "X-Request-Id": string;
                    /** @description `true` when this request made no new purchase: `data.top_up` is the one stored under this reference. */
                    "Idempotent-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "error";
                        error: {
                            /**
                             * @description Stable, snake_case: branch on it.
                             * @enum {string}
                             */
                            code: "billing_customer_missing" | "billing_credentials_refused" | "limit_exceeded" | "reference_conflict" | "purchase_in_progress" | "payment_unresolved";
                            /** @description One sentence a person can act on. */
                            message: string;
                            /** @description Facts about the error, such as `fields` or `limit`. */
                            details: {
                                [key: string]: unknown;
                            };
                        };
                        data?: {
                            top_up: components["schemas"]["TopUp"];
                            /** @description The organisation's spendable balance after the request. */
                            points_balance: number;
                        };
                    };
                };
            };
            /** @description `request_too_large`: The body is over 64 KiB. */
            413: {
                headers: {
                    /** @description The request's id: yours when you sent a well-formed one. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "error";
                        error: {
                            /**
                             * @description Stable, snake_case: branch on it.
                             * @enum {string}
                             */
                            code: "request_too_large";
                            /** @description One sentence a person can act on. */
                            message: string;
                            /** @description Facts about the error, such as `fields` or `limit`. */
                            details: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /**
             * @description `invalid_request`: The body or query is invalid: `details.fields` names every offending field and why.
             *
             *     `currency_required`: No `currency` given and the organisation has no saved currency.
             *
             *     `invalid_payment_method`: `payment_source_id` is not a usable saved payment method of this organisation.
             *
             *     `payment_method_required`: Several payment methods and no default: name one in `payment_source_id`.
             *
             *     `no_payment_method`: The organisation has no usable payment method; an admin must add one.
             *
             *     `currency_not_available`: The billing provider has no price for this bundle in this currency.
             */
            422: {
                headers: {
                    /** @description The request's id: yours when you sent a well-formed one. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "error";
                        error: {
                            /**
                             * @description Stable, snake_case: branch on it.
                             * @enum {string}
                             */
                            code: "invalid_request" | "currency_required" | "invalid_payment_method" | "payment_method_required" | "no_payment_method" | "currency_not_available";
                            /** @description One sentence a person can act on. */
                            message: string;
                            /** @description Facts about the error, such as `fields` or `limit`. */
                            details: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /**
             * @description `frequency_limit_reached`: Too many purchases in the window; retry after `Retry-After` seconds.
             *
             *     `daily_limit_reached`: The organisation's Points in the last 24 hours would pass its daily limit; retry after `Retry-After` seconds.
             *
             *     `key_daily_limit_reached`: This key's own daily Points cap would be passed; retry after `Retry-After` seconds, or use another key.
             */
            429: {
                headers: {
                    /** @description The request's id: yours when you sent a well-formed one. */
                    "X-Request-Id": string;
                    /** @description Whole seconds until a retry can succeed. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "error";
                        error: {
                            /**
                             * @description Stable, snake_case: branch on it.
                             * @enum {string}
                             */
                            code: "frequency_limit_reached" | "daily_limit_reached" | "key_daily_limit_reached";
                            /** @description One sentence a person can act on. */
                            message: string;
                            /** @description Facts about the error, such as `fields` or `limit`. */
                            details: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /**
             * @description `payment_methods_unavailable`: The billing provider did not answer; retry after `Retry-After` seconds.
             *
             *     `database_unavailable`: The service could not reach its database for a moment (a restart); retry with the same reference after `Retry-After` seconds, it never charges twice.
             */
            502: {
                headers: {
                    /** @description The request's id: yours when you sent a well-formed one. */
                    "X-Request-Id": string;
                    /** @description Whole seconds until a retry can succeed. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "error";
                        error: {
                            /**
                             * @description Stable, snake_case: branch on it.
                             * @enum {string}
                             */
                            code: "payment_methods_unavailable" | "database_unavailable";
                            /** @description One sentence a person can act on. */
                            message: string;
                            /** @description Facts about the error, such as `fields` or `limit`. */
                            details: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
        };
    };
    getTopUp: {
        parameters: {
            query?: never;
            header?: {
                /** @description Your id for this request, echoed back; one is made when absent or malformed. */
                "X-Request-Id"?: string;
            };
            path: {
                /** @description A purchase's id. */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The purchase. */
            200: {
                headers: {
                    /** @description The request's id: yours when you sent a well-formed one. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "success",
                     *       "data": {
                     *         "top_up": {
                     *           "id": "tu_01JD4B8M2N3P4Q5R6S7T8V9W0X",
                     *           "reference": "order-1042",
                     *           "points": 1000,
                     *           "currency": "EUR",
                     *           "amount": 8900,
                     *           "payment_source_id": "pm_1QabcDEF",
                     *           "status": "paid",
                     *           "failure": null,
                     *           "source": "api",
                     *           "created_at": "2026-11-24T09:30:00.000Z",
                     *           "paid_at": "2026-11-24T09:30:01.000Z",
                     *           "refunded_points": 0,
                     *           "refunded_amount": 0,
                     *           "dispute": null,
                     *           "receipt_url": "https://points.example.com/dashboard/receipts/tu_01JD4B8M2N3P4Q5R6S7T8V9W0X",
                     *           "points_expire_at": null
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @constant */
                        status: "success";
                        data: {
                            top_up: components["schemas"]["TopUp"];
                        };
                    };
                };
            };
            /**
             * @description `invalid_api_key`: No `Authorization: Bearer <key>`, or the key is unknown or revoked.
             *
             *     `api_purchases_disabled`: An admin has not enabled API purchases in the dashboard.
             */
            403: {
                headers: {
                    /** @description The request's id: yours when you sent a well-formed one. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "error";
                        error: {
                            /**
                             * @description Stable, snake_case: branch on it.
                             * @enum {string}
                             */
                            code: "invalid_api_key" | "api_purchases_disabled";
                            /** @description One sentence a person can act on. */
                            message: string;
                            /** @description Facts about the error, such as `fields` or `limit`. */
                            details: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /**
             * @description `not_available`: The organisation is not eligible for API purchases (an operator setting).
             *
             *     `not_found`: No such purchase for this organisation, or no such endpoint.
             */
            404: {
                headers: {
                    /** @description The request's id: yours when you sent a well-formed one. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "error";
                        error: {
                            /**
                             * @description Stable, snake_case: branch on it.
                             * @enum {string}
                             */
                            code: "not_available" | "not_found";
                            /** @description One sentence a person can act on. */
                            message: string;
                            /** @description Facts about the error, such as `fields` or `limit`. */
                            details: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description `database_unavailable`: The service could not reach its database for a moment (a restart); retry with the same reference after `Retry-After` seconds, it never charges twice. */
            502: {
                headers: {
                    /** @description The request's id: yours when you sent a well-formed one. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "error";
                        error: {
                            /**
                             * @description Stable, snake_case: branch on it.
                             * @enum {string}
                             */
                            code: "database_unavailable";
                            /** @description One sentence a person can act on. */
                            message: string;
                            /** @description Facts about the error, such as `fields` or `limit`. */
                            details: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
        };
    };
    listPaymentMethods: {
        parameters: {
            query?: never;
            header?: {
                /** @description Your id for this request, echoed back; one is made when absent or malformed. */
                "X-Request-Id"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The usable payment methods. */
            200: {
                headers: {
                    /** @description The request's id: yours when you sent a well-formed one. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "success",
                     *       "data": {
                     *         "payment_methods": [
                     *           {
                     *             "id": "pm_1QabcDEF",
                     *             "label": "Visa •••• 4242",
                     *             "type": "card",
                     *             "brand": "visa",
                     *             "last4": "4242",
                     *             "exp_month": 12,
                     *             "exp_year": 2030,
                     *             "is_default": true
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @constant */
                        status: "success";
                        data: {
                            payment_methods: components["schemas"]["PaymentMethod"][];
                        };
                    };
                };
            };
            /**
             * @description `invalid_api_key`: No `Authorization: Bearer <key>`, or the key is unknown or revoked.
             *
             *     `api_purchases_disabled`: An admin has not enabled API purchases in the dashboard.
             */
            403: {
                headers: {
                    /** @description The request's id: yours when you sent a well-formed one. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "error";
                        error: {
                            /**
                             * @description Stable, snake_case: branch on it.
                             * @enum {string}
                             */
                            code: "invalid_api_key" | "api_purchases_disabled";
                            /** @description One sentence a person can act on. */
                            message: string;
                            /** @description Facts about the error, such as `fields` or `limit`. */
                            details: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description `not_available`: The organisation is not eligible for API purchases (an operator setting). */
            404: {
                headers: {
                    /** @description The request's id: yours when you sent a well-formed one. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "error";
                        error: {
                            /**
                             * @description Stable, snake_case: branch on it.
                             * @enum {string}
                             */
                            code: "not_available";
                            /** @description One sentence a person can act on. */
                            message: string;
                            /** @description Facts about the error, such as `fields` or `limit`. */
                            details: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /**
             * @description `billing_customer_missing`: The billing provider no longer knows the organisation's customer; the service's operator must relink it.
             *
             *     `billing_credentials_refused`: The billing provider refuses the service's own API key; the service's operator must fix it.
             */
            409: {
                headers: {
                    /** @description The request's id: yours when you sent a well-formed one. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "error";
                        error: {
                            /**
                             * @description Stable, snake_case: branch on it.
                             * @enum {string}
                             */
                            code: "billing_customer_missing" | "billing_credentials_refused";
                            /** @description One sentence a person can act on. */
                            message: string;
                            /** @description Facts about the error, such as `fields` or `limit`. */
                            details: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /**
             * @description `payment_methods_unavailable`: The billing provider did not answer; retry after `Retry-After` seconds.
             *
             *     `database_unavailable`: The service could not reach its database for a moment (a restart); retry with the same reference after `Retry-After` seconds, it never charges twice.
             */
            502: {
                headers: {
                    /** @description The request's id: yours when you sent a well-formed one. */
                    "X-Request-Id": string;
                    /** @description Whole seconds until a retry can succeed. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "error";
                        error: {
                            /**
                             * @description Stable, snake_case: branch on it.
                             * @enum {string}
                             */
                            code: "payment_methods_unavailable" | "database_unavailable";
                            /** @description One sentence a person can act on. */
                            message: string;
                            /** @description Facts about the error, such as `fields` or `limit`. */
                            details: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
        };
    };
    getBalance: {
        parameters: {
            query?: never;
            header?: {
                /** @description Your id for this request, echoed back; one is made when absent or malformed. */
                "X-Request-Id"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The balance. */
            200: {
                headers: {
                    /** @description The request's id: yours when you sent a well-formed one. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "success",
                     *       "data": {
                     *         "points_balance": 8350,
                     *         "points_held": 0,
                     *         "points_reserved": 0,
                     *         "points_by_category": {
                     *           "paid": 8000,
                     *           "promotional": 350
                     *         },
                     *         "expiring": [
                     *           {
                     *             "points": 350,
                     *             "category": "promotional",
                     *             "expires_at": "2026-12-12T00:00:00.000Z"
                     *           }
                     *         ],
                     *         "limits": {
                     *           "max_points_balance": {
                     *             "limit": 50000,
                     *             "used": 8000,
                     *             "remaining": 42000
                     *           },
                     *           "frequency_limit": {
                     *             "limit": 10,
                     *             "window_seconds": 3600,
                     *             "used": 2,
                     *             "remaining": 8
                     *           },
                     *           "daily_points_limit": {
                     *             "limit": 20000,
                     *             "used": 1000,
                     *             "remaining": 19000
                     *           }
                     *         },
                     *         "next_purchase_at": "2026-11-24T09:30:00.000Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @constant */
                        status: "success";
                        data: components["schemas"]["Balance"];
                    };
                };
            };
            /**
             * @description `invalid_api_key`: No `Authorization: Bearer <key>`, or the key is unknown or revoked.
             *
             *     `api_purchases_disabled`: An admin has not enabled API purchases in the dashboard.
             */
            403: {
                headers: {
                    /** @description The request's id: yours when you sent a well-formed one. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "error";
                        error: {
                            /**
                             * @description Stable, snake_case: branch on it.
                             * @enum {string}
                             */
                            code: "invalid_api_key" | "api_purchases_disabled";
                            /** @description One sentence a person can act on. */
                            message: string;
                            /** @description Facts about the error, such as `fields` or `limit`. */
                            details: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description `not_available`: The organisation is not eligible for API purchases (an operator setting). */
            404: {
                headers: {
                    /** @description The request's id: yours when you sent a well-formed one. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "error";
                        error: {
                            /**
                             * @description Stable, snake_case: branch on it.
                             * @enum {string}
                             */
                            code: "not_available";
                            /** @description One sentence a person can act on. */
                            message: string;
                            /** @description Facts about the error, such as `fields` or `limit`. */
                            details: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description `database_unavailable`: The service could not reach its database for a moment (a restart); retry with the same reference after `Retry-After` seconds, it never charges twice. */
            502: {
                headers: {
                    /** @description The request's id: yours when you sent a well-formed one. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "error";
                        error: {
                            /**
                             * @description Stable, snake_case: branch on it.
                             * @enum {string}
                             */
                            code: "database_unavailable";
                            /** @description One sentence a person can act on. */
                            message: string;
                            /** @description Facts about the error, such as `fields` or `limit`. */
                            details: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
        };
    };
    createQuote: {
        parameters: {
            query?: never;
            header?: {
                /** @description Your id for this request, echoed back; one is made when absent or malformed. */
                "X-Request-Id"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "points": 1000,
                 *       "currency": "EUR"
                 *     }
                 */
                "application/json": components["schemas"]["QuoteRequest"];
            };
        };
        responses: {
            /** @description The purchase would pass. */
            200: {
                headers: {
                    /** @description The request's id: yours when you sent a well-formed one. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "success",
                     *       "data": {
                     *         "quote": {
                     *           "points": 1000,
                     *           "currency": "EUR",
                     *           "amount": 8900,
                     *           "payment_source_id": "pm_1QabcDEF",
                     *           "payment_method": {
                     *             "id": "pm_1QabcDEF",
                     *             "label": "Visa •••• 4242",
                     *             "type": "card",
                     *             "brand": "visa",
                     *             "last4": "4242",
                     *             "exp_month": 12,
                     *             "exp_year": 2030,
                     *             "is_default": true
                     *           },
                     *           "points_balance_after": 9350,
                     *           "points_expire_at": null
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @constant */
                        status: "success";
                        data: {
                            quote: components["schemas"]["Quote"];
                        };
                    };
                };
            };
            /**
             * @description `invalid_api_key`: No `Authorization: Bearer <key>`, or the key is unknown or revoked.
             *
             *     `api_purchases_disabled`: An admin has not enabled API purchases in the dashboard.
             */
            403: {
                headers: {
                    /** @description The request's id: yours when you sent a well-formed one. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "error";
                        error: {
                            /**
                             * @description Stable, snake_case: branch on it.
                             * @enum {string}
                             */
                            code: "invalid_api_key" | "api_purchases_disabled";
                            /** @description One sentence a person can act on. */
                            message: string;
                            /** @description Facts about the error, such as `fields` or `limit`. */
                            details: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description `not_available`: The organisation is not eligible for API purchases (an operator setting). */
            404: {
                headers: {
                    /** @description The request's id: yours when you sent a well-formed one. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "error";
                        error: {
                            /**
                             * @description Stable, snake_case: branch on it.
                             * @enum {string}
                             */
                            code: "not_available";
                            /** @description One sentence a person can act on. */
                            message: string;
                            /** @description Facts about the error, such as `fields` or `limit`. */
                            details: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /**
             * @description `billing_customer_missing`: The billing provider no longer knows the organisation's customer; the service's operator must relink it.
             *
             *     `billing_credentials_refused`: The billing provider refuses the service's own API key; the service's operator must fix it.
             *
             *     `limit_exceeded`: An organisation limit refuses it: `details.limit` is `max_points_per_top_up` or `max_points_balance`.
             */
            409: {
                headers: {
                    /** @description The request's id: yours when you sent a well-formed one. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "error";
                        error: {
                            /**
                             * @description Stable, snake_case: branch on it.
                             * @enum {string}
                             */
                            code: "billing_customer_missing" | "billing_credentials_refused" | "limit_exceeded";
                            /** @description One sentence a person can act on. */
                            message: string;
                            /** @description Facts about the error, such as `fields` or `limit`. */
                            details: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description `request_too_large`: The body is over 64 KiB. */
            413: {
                headers: {
                    /** @description The request's id: yours when you sent a well-formed one. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "error";
                        error: {
                            /**
                             * @description Stable, snake_case: branch on it.
                             * @enum {string}
                             */
                            code: "request_too_large";
                            /** @description One sentence a person can act on. */
                            message: string;
                            /** @description Facts about the error, such as `fields` or `limit`. */
                            details: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /**
             * @description `invalid_request`: The body or query is invalid: `details.fields` names every offending field and why.
             *
             *     `currency_required`: No `currency` given and the organisation has no saved currency.
             *
             *     `invalid_payment_method`: `payment_source_id` is not a usable saved payment method of this organisation.
             *
             *     `payment_method_required`: Several payment methods and no default: name one in `payment_source_id`.
             *
             *     `no_payment_method`: The organisation has no usable payment method; an admin must add one.
             *
             *     `currency_not_available`: The billing provider has no price for this bundle in this currency.
             */
            422: {
                headers: {
                    /** @description The request's id: yours when you sent a well-formed one. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "error";
                        error: {
                            /**
                             * @description Stable, snake_case: branch on it.
                             * @enum {string}
                             */
                            code: "invalid_request" | "currency_required" | "invalid_payment_method" | "payment_method_required" | "no_payment_method" | "currency_not_available";
                            /** @description One sentence a person can act on. */
                            message: string;
                            /** @description Facts about the error, such as `fields` or `limit`. */
                            details: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /**
             * @description `frequency_limit_reached`: Too many purchases in the window; retry after `Retry-After` seconds.
             *
             *     `daily_limit_reached`: The organisation's Points in the last 24 hours would pass its daily limit; retry after `Retry-After` seconds.
             *
             *     `key_daily_limit_reached`: This key's own daily Points cap would be passed; retry after `Retry-After` seconds, or use another key.
             */
            429: {
                headers: {
                    /** @description The request's id: yours when you sent a well-formed one. */
                    "X-Request-Id": string;
                    /** @description Whole seconds until a retry can succeed. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "error";
                        error: {
                            /**
                             * @description Stable, snake_case: branch on it.
                             * @enum {string}
                             */
                            code: "frequency_limit_reached" | "daily_limit_reached" | "key_daily_limit_reached";
                            /** @description One sentence a person can act on. */
                            message: string;
                            /** @description Facts about the error, such as `fields` or `limit`. */
                            details: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /**
             * @description `payment_methods_unavailable`: The billing provider did not answer; retry after `Retry-After` seconds.
             *
             *     `database_unavailable`: The service could not reach its database for a moment (a restart); retry with the same reference after `Retry-After` seconds, it never charges twice.
             */
            502: {
                headers: {
                    /** @description The request's id: yours when you sent a well-formed one. */
                    "X-Request-Id": string;
                    /** @description Whole seconds until a retry can succeed. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "error";
                        error: {
                            /**
                             * @description Stable, snake_case: branch on it.
                             * @enum {string}
                             */
                            code: "payment_methods_unavailable" | "database_unavailable";
                            /** @description One sentence a person can act on. */
                            message: string;
                            /** @description Facts about the error, such as `fields` or `limit`. */
                            details: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
        };
    };
    listSpends: {
        parameters: {
            query?: {
                /** @description How many to answer, 1 to 100. */
                limit?: number;
                /** @description A spend id: answer the ones older than it (the next page). */
                starting_after?: string;
                /** @description A spend id: answer the ones newer than it (the previous page). Not with `starting_after`. */
                ending_before?: string;
                /** @description Only the spend with this reference (exact, case-sensitive). */
                reference?: string;
            };
            header?: {
                /** @description Your id for this request, echoed back; one is made when absent or malformed. */
                "X-Request-Id"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of spends. */
            200: {
                headers: {
                    /** @description The request's id: yours when you sent a well-formed one. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "success",
                     *       "data": {
                     *         "spends": [
                     *           {
                     *             "id": "sp_01JD4B8M2N3P4Q5R6S7T",
                     *             "reference": "job-8812",
                     *             "points": 120,
                     *             "description": "Report generation",
                     *             "created_at": "2026-11-24T10:02:00.000Z"
                     *           }
                     *         ],
                     *         "has_more": false
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @constant */
                        status: "success";
                        data: {
                            spends: components["schemas"]["Spend"][];
                            /** @description Whether there are more past this page. */
                            has_more: boolean;
                        };
                    };
                };
            };
            /**
             * @description `invalid_api_key`: No `Authorization: Bearer <key>`, or the key is unknown or revoked.
             *
             *     `api_purchases_disabled`: An admin has not enabled API purchases in the dashboard.
             */
            403: {
                headers: {
                    /** @description The request's id: yours when you sent a well-formed one. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "error";
                        error: {
                            /**
                             * @description Stable, snake_case: branch on it.
                             * @enum {string}
                             */
                            code: "invalid_api_key" | "api_purchases_disabled";
                            /** @description One sentence a person can act on. */
                            message: string;
                            /** @description Facts about the error, such as `fields` or `limit`. */
                            details: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description `not_available`: The organisation is not eligible for API purchases (an operator setting). */
            404: {
                headers: {
                    /** @description The request's id: yours when you sent a well-formed one. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "error";
                        error: {
                            /**
                             * @description Stable, snake_case: branch on it.
                             * @enum {string}
                             */
                            code: "not_available";
                            /** @description One sentence a person can act on. */
                            message: string;
                            /** @description Facts about the error, such as `fields` or `limit`. */
                            details: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description `invalid_request`: The body or query is invalid: `details.fields` names every offending field and why. */
            422: {
                headers: {
                    /** @description The request's id: yours when you sent a well-formed one. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "error";
                        error: {
                            /**
                             * @description Stable, snake_case: branch on it.
                             * @enum {string}
                             */
                            code: "invalid_request";
                            /** @description One sentence a person can act on. */
                            message: string;
                            /** @description Facts about the error, such as `fields` or `limit`. */
                            details: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description `database_unavailable`: The service could not reach its database for a moment (a restart); retry with the same reference after `Retry-After` seconds, it never charges twice. */
            502: {
                headers: {
                    /** @description The request's id: yours when you sent a well-formed one. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "error";
                        error: {
                            /**
                             * @description Stable, snake_case: branch on it.
                             * @enum {string}
                             */
                            code: "database_unavailable";
                            /** @description One sentence a person can act on. */
                            message: string;
                            /** @description Facts about the error, such as `fields` or `limit`. */
                            details: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
        };
    };
    createSpend: {
        parameters: {
            query?: never;
            header?: {
                /** @description Your id for this request, echoed back; one is made when absent or malformed. */
                "X-Request-Id"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "points": 120,
                 *       "reference": "job-8812",
                 *       "description": "Report generation"
                 *     }
                 */
                "application/json": components["schemas"]["SpendRequest"];
            };
        };
        responses: {
            /** @description Spent by an earlier request with this reference: nothing was spent again. */
            200: {
                headers: {
                    /** @description The request's id: yours when you sent a well-formed one. */
                    "X-Request-Id": string;
                    /** @description `true`: this request spent nothing; `data.spend` is the one stored under this reference. */
                    "Idempotent-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "success",
                     *       "data": {
                     *         "spend": {
                     *           "id": "sp_01JD4B8M2N3P4Q5R6S7T",
                     *           "reference": "job-8812",
                     *           "points": 120,
                     *           "description": "Report generation",
                     *           "created_at": "2026-11-24T10:02:00.000Z"
                     *         },
                     *         "points_balance": 880
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @constant */
                        status: "success";
                        data: {
                            spend: components["schemas"]["Spend"];
                            /** @description The organisation's spendable balance after the request. */
                            points_balance: number;
                        };
                    };
                };
            };
            /** @description Spent: the Points are gone from the balance. */
            201: {
                headers: {
                    /** @description The request's id: yours when you sent a well-formed one. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "success",
                     *       "data": {
                     *         "spend": {
                     *           "id": "sp_01JD4B8M2N3P4Q5R6S7T",
                     *           "reference": "job-8812",
                     *           "points": 120,
                     *           "description": "Report generation",
                     *           "created_at": "2026-11-24T10:02:00.000Z"
                     *         },
                     *         "points_balance": 880
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @constant */
                        status: "success";
                        data: {
                            spend: components["schemas"]["Spend"];
                            /** @description The organisation's spendable balance after the request. */
                            points_balance: number;
                        };
                    };
                };
            };
            /**
             * @description `invalid_api_key`: No `Authorization: Bearer <key>`, or the key is unknown or revoked.
             *
             *     `api_purchases_disabled`: An admin has not enabled API purchases in the dashboard.
             *
             *     `insufficient_scope`: The key's scope does not allow this: buying needs a `purchase` key, spending a `purchase` or `spend` key.
             */
            403: {
                headers: {
                    /** @description The request's id: yours when you sent a well-formed one. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "error";
                        error: {
                            /**
                             * @description Stable, snake_case: branch on it.
                             * @enum {string}
                             */
                            code: "invalid_api_key" | "api_purchases_disabled" | "insufficient_scope";
                            /** @description One sentence a person can act on. */
                            message: string;
                            /** @description Facts about the error, such as `fields` or `limit`. */
                            details: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description `not_available`: The organisation is not eligible for API purchases (an operator setting). */
            404: {
                headers: {
                    /** @description The request's id: yours when you sent a well-formed one. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "error";
                        error: {
                            /**
                             * @description Stable, snake_case: branch on it.
                             * @enum {string}
                             */
                            code: "not_available";
                            /** @description One sentence a person can act on. */
                            message: string;
                            /** @description Facts about the error, such as `fields` or `limit`. */
                            details: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /**
             * @description `reference_conflict`: The reference was used with other terms; `data.top_up` is the stored purchase (for a spend, `details.spend` is the stored spend).
             *
             *     `insufficient_points`: The spendable balance is smaller than the Points to spend (held Points cannot be spent); nothing was spent.
             */
            409: {
                headers: {
                    /** @description The request's id: yours when you sent a well-formed one. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "error";
                        error: {
                            /**
                             * @description Stable, snake_case: branch on it.
                             * @enum {string}
                             */
                            code: "reference_conflict" | "insufficient_points";
                            /** @description One sentence a person can act on. */
                            message: string;
                            /** @description Facts about the error, such as `fields` or `limit`. */
                            details: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description `request_too_large`: The body is over 64 KiB. */
            413: {
                headers: {
                    /** @description The request's id: yours when you sent a well-formed one. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "error";
                        error: {
                            /**
                             * @description Stable, snake_case: branch on it.
                             * @enum {string}
                             */
                            code: "request_too_large";
                            /** @description One sentence a person can act on. */
                            message: string;
                            /** @description Facts about the error, such as `fields` or `limit`. */
                            details: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description `invalid_request`: The body or query is invalid: `details.fields` names every offending field and why. */
            422: {
                headers: {
                    /** @description The request's id: yours when you sent a well-formed one. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "error";
                        error: {
                            /**
                             * @description Stable, snake_case: branch on it.
                             * @enum {string}
                             */
                            code: "invalid_request";
                            /** @description One sentence a person can act on. */
                            message: string;
                            /** @description Facts about the error, such as `fields` or `limit`. */
                            details: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description `database_unavailable`: The service could not reach its database for a moment (a restart); retry with the same reference after `Retry-After` seconds, it never charges twice. */
            502: {
                headers: {
                    /** @description The request's id: yours when you sent a well-formed one. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "error";
                        error: {
                            /**
                             * @description Stable, snake_case: branch on it.
                             * @enum {string}
                             */
                            code: "database_unavailable";
                            /** @description One sentence a person can act on. */
                            message: string;
                            /** @description Facts about the error, such as `fields` or `limit`. */
                            details: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
        };
    };
    listEvents: {
        parameters: {
            query?: {
                /** @description A sequence number: answer the events after it (default 0, from the first). */
                after?: number;
                /** @description How many to answer, 1 to 100. */
                limit?: number;
            };
            header?: {
                /** @description Your id for this request, echoed back; one is made when absent or malformed. */
                "X-Request-Id"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of events. */
            200: {
                headers: {
                    /** @description The request's id: yours when you sent a well-formed one. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "success",
                     *       "data": {
                     *         "events": [
                     *           {
                     *             "id": "evt_01JD4B8M2N3P4Q5R6S7T",
                     *             "type": "top_up.paid",
                     *             "sequence": 42,
                     *             "created_at": "2026-11-24T09:30:01.000Z",
                     *             "organization_id": "org_01JD4B8M2N3P4Q5R6S7T",
                     *             "data": {
                     *               "top_up": {
                     *                 "id": "tu_01JD4B8M2N3P4Q5R6S7T8V9W0X",
                     *                 "reference": "order-1042",
                     *                 "points": 1000,
                     *                 "currency": "EUR",
                     *                 "amount": 8900,
                     *                 "payment_source_id": "pm_1QabcDEF",
                     *                 "status": "paid",
                     *                 "failure": null,
                     *                 "source": "api",
                     *                 "created_at": "2026-11-24T09:30:00.000Z",
                     *                 "paid_at": "2026-11-24T09:30:01.000Z",
                     *                 "refunded_points": 0,
                     *                 "refunded_amount": 0,
                     *                 "dispute": null,
                     *                 "receipt_url": "https://points.example.com/dashboard/receipts/tu_01JD4B8M2N3P4Q5R6S7T8V9W0X",
                     *                 "points_expire_at": null
                     *               },
                     *               "points_balance": 9350
                     *             }
                     *           }
                     *         ],
                     *         "has_more": false
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @constant */
                        status: "success";
                        data: {
                            events: components["schemas"]["Event"][];
                            /** @description Whether there are more past this page. */
                            has_more: boolean;
                        };
                    };
                };
            };
            /**
             * @description `invalid_api_key`: No `Authorization: Bearer <key>`, or the key is unknown or revoked.
             *
             *     `api_purchases_disabled`: An admin has not enabled API purchases in the dashboard.
             */
            403: {
                headers: {
                    /** @description The request's id: yours when you sent a well-formed one. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "error";
                        error: {
                            /**
                             * @description Stable, snake_case: branch on it.
                             * @enum {string}
                             */
                            code: "invalid_api_key" | "api_purchases_disabled";
                            /** @description One sentence a person can act on. */
                            message: string;
                            /** @description Facts about the error, such as `fields` or `limit`. */
                            details: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description `not_available`: The organisation is not eligible for API purchases (an operator setting). */
            404: {
                headers: {
                    /** @description The request's id: yours when you sent a well-formed one. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "error";
                        error: {
                            /**
                             * @description Stable, snake_case: branch on it.
                             * @enum {string}
                             */
                            code: "not_available";
                            /** @description One sentence a person can act on. */
                            message: string;
                            /** @description Facts about the error, such as `fields` or `limit`. */
                            details: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description `events_expired`: The events after `after` are older than 30 days and gone; `details.oldest_sequence` is the oldest kept. Read the current state, then continue from there. */
            410: {
                headers: {
                    /** @description The request's id: yours when you sent a well-formed one. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "error";
                        error: {
                            /**
                             * @description Stable, snake_case: branch on it.
                             * @enum {string}
                             */
                            code: "events_expired";
                            /** @description One sentence a person can act on. */
                            message: string;
                            /** @description Facts about the error, such as `fields` or `limit`. */
                            details: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description `invalid_request`: The body or query is invalid: `details.fields` names every offending field and why. */
            422: {
                headers: {
                    /** @description The request's id: yours when you sent a well-formed one. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "error";
                        error: {
                            /**
                             * @description Stable, snake_case: branch on it.
                             * @enum {string}
                             */
                            code: "invalid_request";
                            /** @description One sentence a person can act on. */
                            message: string;
                            /** @description Facts about the error, such as `fields` or `limit`. */
                            details: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description `database_unavailable`: The service could not reach its database for a moment (a restart); retry with the same reference after `Retry-After` seconds, it never charges twice. */
            502: {
                headers: {
                    /** @description The request's id: yours when you sent a well-formed one. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "error";
                        error: {
                            /**
                             * @description Stable, snake_case: branch on it.
                             * @enum {string}
                             */
                            code: "database_unavailable";
                            /** @description One sentence a person can act on. */
                            message: string;
                            /** @description Facts about the error, such as `fields` or `limit`. */
                            details: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
        };
    };
    getOpenApiDocument: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The document. */
            200: {
                headers: {
                    /** @description The request's id: yours when you sent a well-formed one. */
                    "X-Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        openapi: "3.1.0";
                    };
                };
            };
        };
    };
}
