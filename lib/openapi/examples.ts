/** Example objects for the OpenAPI document, typed by the schemas' types so they keep their shape. */

import type {
  BalanceJson,
  EventJson,
  PaymentMethodJson,
  QuoteJson,
  SpendJson,
  TopUpJson,
} from "@/lib/points/api/schemas";

export const examplePaymentMethod: PaymentMethodJson = {
  id: "pm_1QabcDEF",
  label: "Visa •••• 4242",
  type: "card",
  brand: "visa",
  last4: "4242",
  exp_month: 12,
  exp_year: 2030,
  is_default: true,
};

export const exampleTopUp: TopUpJson = {
  id: "tu_01JD4B8M2N3P4Q5R6S7T8V9W0X",
  reference: "order-1042",
  points: 1000,
  currency: "EUR",
  amount: 8900,
  payment_source_id: examplePaymentMethod.id,
  status: "paid",
  failure: null,
  source: "api",
  created_at: "2026-11-24T09:30:00.000Z",
  paid_at: "2026-11-24T09:30:01.000Z",
  refunded_points: 0,
  refunded_amount: 0,
  dispute: null,
  receipt_url: "https://points.example.com/dashboard/receipts/tu_01JD4B8M2N3P4Q5R6S7T8V9W0X",
  points_expire_at: null,
};

export const exampleFailedTopUp: TopUpJson = {
  ...exampleTopUp,
  id: "tu_01JD4B9A1B2C3D4E5F6G7H8J9K",
  reference: "order-1043",
  status: "failed",
  failure: { code: "card_declined", message: "The card was declined." },
  paid_at: null,
  receipt_url: null,
};

export const exampleBalance: BalanceJson = {
  points_balance: 8350,
  points_held: 0,
  points_reserved: 0,
  points_by_category: { paid: 8000, promotional: 350 },
  expiring: [{ points: 350, category: "promotional", expires_at: "2026-12-12T00:00:00.000Z" }],
  limits: {
    max_points_balance: { limit: 50000, used: 8000, remaining: 42000 },
    frequency_limit: { limit: 10, window_seconds: 3600, used: 2, remaining: 8 },
    daily_points_limit: { limit: 20000, used: 1000, remaining: 19000 },
  },
  next_purchase_at: "2026-11-24T09:30:00.000Z",
};

export const exampleQuote: QuoteJson = {
  points: 1000,
  currency: "EUR",
  amount: 8900,
  payment_source_id: examplePaymentMethod.id,
  payment_method: examplePaymentMethod,
  points_balance_after: 9350,
  points_expire_at: null,
};

export const exampleEvent: EventJson = {
  id: "evt_01JD4B8M2N3P4Q5R6S7T",
  type: "top_up.paid",
  sequence: 42,
  created_at: exampleTopUp.paid_at as string,
  organization_id: "org_01JD4B8M2N3P4Q5R6S7T",
  data: { top_up: exampleTopUp, points_balance: 9350 },
};

export const exampleSpend: SpendJson = {
  id: "sp_01JD4B8M2N3P4Q5R6S7T",
  reference: "job-8812",
  points: 120,
  description: "Report generation",
  created_at: "2026-11-24T10:02:00.000Z",
};
