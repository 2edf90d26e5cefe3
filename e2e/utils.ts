import { randomBytes } from "node:crypto";
import type { APIRequestContext, APIResponse } from "@playwright/test";
import { expect } from "@playwright/test";
import type { FixtureOrganization, FixturePaymentMethod } from "./fixture-types";

export const TOP_UPS = "/v3/points/top-ups";
export const PAYMENT_METHODS = "/v3/points/payment-methods";
export const MAX_BODY_BYTES = 64 * 1024;

/** The TopUp object of docs/contract.md §2. */
export interface TopUpJson {
  id: string;
  reference: string;
  points: number;
  currency: "USD" | "GBP" | "EUR";
  amount: number;
  payment_source_id: string;
  status: "pending" | "processing" | "awaiting_payment" | "failed" | "paid";
  failure: { code: string; message: string } | null;
  source: "api" | "dashboard";
  created_at: string;
  paid_at: string | null;
  /** What refunds took back (docs/api.md, Refunds and disputes). */
  refunded_points: number;
  refunded_amount: number;
  dispute: {
    status: "open" | "won" | "lost";
    points: number;
    points_state: "held" | "removed" | "released";
    opened_at: string | null;
    closed_at: string | null;
  } | null;
  /** The dashboard's receipt of a paid purchase; null before it is paid. */
  receipt_url: string | null;
  points_expire_at: string | null;
}

export interface PurchaseData {
  top_up: TopUpJson;
  points_balance: number;
}

/** The PaymentMethod object of docs/contract.md §2. */
export interface PaymentMethodJson {
  id: string;
  label: string;
  type: string;
  brand: string;
  last4: string;
  exp_month: number;
  exp_year: number;
  is_default: boolean;
}

export interface ApiError {
  code: string;
  message: string;
  details: Record<string, unknown>;
}

export interface ErrorAnswer {
  error: ApiError;
  /** Present only when the error is about an existing purchase. */
  data?: PurchaseData;
  response: APIResponse;
}

const TOP_UP_KEYS = [
  "amount",
  "created_at",
  "currency",
  "dispute",
  "failure",
  "id",
  "paid_at",
  "payment_source_id",
  "points",
  "points_expire_at",
  "receipt_url",
  "reference",
  "refunded_amount",
  "refunded_points",
  "source",
  "status",
].sort();
const PAYMENT_METHOD_KEYS = ["brand", "exp_month", "exp_year", "id", "is_default", "label", "last4", "type"].sort();
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,100}$/;
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?Z$/;

/** Things an error body must never contain: stack frames, source paths, SQL, secrets, connection strings. */
const LEAKS: [string, RegExp][] = [
  ["a stack frame", /\n\s*at\s|\bat\s+[\w.<>]+\s+\(/],
  ["a source path", /node_modules|\.next\/|\.tsx?:\d+/],
  ["SQL", /\b(select\s+.+\s+from|insert\s+into|update\s+\w+\s+set|delete\s+from)\b/i],
  ["an API key", /pts_[A-Za-z0-9]{40}/],
  ["a connection string", /postgres(ql)?:\/\//i],
];

/** A reference no earlier run or other test has used: runs against a reused database never collide. */
export function uniqueRef(label: string): string {
  return `${label}-${Date.now().toString(36)}-${randomBytes(5).toString("hex")}`;
}

export function bearer(organizationOrKey: FixtureOrganization | string): Record<string, string> {
  const key = typeof organizationOrKey === "string" ? organizationOrKey : organizationOrKey.apiKey;
  return { Authorization: `Bearer ${key}` };
}

export function cardOf(organization: FixtureOrganization, kind: string): FixturePaymentMethod {
  const method = organization.paymentMethods.find((candidate) => candidate.kind === kind);
  if (!method) throw new Error(`The fixture organisation has no ${kind} card.`);
  return method;
}

/** POST a purchase with a JSON body built from `body`. */
export function postTopUp(
  request: APIRequestContext,
  organization: FixtureOrganization | string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<APIResponse> {
  return request.post(TOP_UPS, {
    headers: { ...bearer(organization), "Content-Type": "application/json", ...headers },
    data: Buffer.from(JSON.stringify(body)),
  });
}

/** POST exactly these bytes, for bodies no JSON.stringify would produce. */
export function postRaw(
  request: APIRequestContext,
  headers: Record<string, string>,
  raw: string | Buffer,
): Promise<APIResponse> {
  return request.post(TOP_UPS, {
    headers: { "Content-Type": "application/json", ...headers },
    data: typeof raw === "string" ? Buffer.from(raw, "utf8") : raw,
  });
}

export function getPaymentMethods(
  request: APIRequestContext,
  organization: FixtureOrganization | string,
  headers: Record<string, string> = {},
): Promise<APIResponse> {
  return request.get(PAYMENT_METHODS, { headers: { ...bearer(organization), ...headers } });
}

/**
 * The parts of docs/contract.md §1 every answer obeys, whatever its status: JSON, an X-Request-Id,
 * no 5xx but 502, nothing leaked. Returns the parsed body.
 */
export async function readEnvelope(response: APIResponse): Promise<Record<string, unknown>> {
  const text = await response.text();
  const where = `${response.status()} ${response.url()}: ${text.slice(0, 500)}`;
  expect(response.headers()["content-type"], where).toMatch(/^application\/json\b/);
  expect(response.headers()["x-request-id"], where).toMatch(REQUEST_ID);
  expect(response.status() < 500 || response.status() === 502, `no 5xx other than 502: ${where}`).toBe(true);
  for (const [what, pattern] of LEAKS) expect(text, `the body contains ${what}: ${where}`).not.toMatch(pattern);
  const body: unknown = JSON.parse(text);
  expect(typeof body === "object" && body !== null && !Array.isArray(body), where).toBe(true);
  return body as Record<string, unknown>;
}

/** A success envelope with exactly `status` and `data`. */
export async function expectSuccess(response: APIResponse, status: number): Promise<Record<string, unknown>> {
  const body = await readEnvelope(response);
  expect(response.status(), JSON.stringify(body)).toBe(status);
  expect(Object.keys(body).sort()).toEqual(["data", "status"]);
  expect(body.status).toBe("success");
  expect(typeof body.data).toBe("object");
  return body.data as Record<string, unknown>;
}

/** An error envelope with this status and code; `data` only when the error is about a stored purchase. */
export async function expectError(response: APIResponse, status: number, code: string): Promise<ErrorAnswer> {
  const body = await readEnvelope(response);
  expect(response.status(), JSON.stringify(body)).toBe(status);
  expect(body.status).toBe("error");
  const error = body.error as ApiError;
  expect(Object.keys(error).sort()).toEqual(["code", "details", "message"]);
  expect(error.code, JSON.stringify(body)).toBe(code);
  expect(typeof error.message).toBe("string");
  expect(error.message.trim().length).toBeGreaterThan(10);
  expect(typeof error.details === "object" && error.details !== null && !Array.isArray(error.details)).toBe(true);
  const keys = Object.keys(body).sort();
  if ("data" in body) {
    expect(keys).toEqual(["data", "error", "status"]);
    const data = expectPurchaseData(body.data);
    return { error, data, response };
  }
  expect(keys).toEqual(["error", "status"]);
  return { error, response };
}

/** An error with no stored purchase behind it: `data` must be absent. */
export async function expectPlainError(response: APIResponse, status: number, code: string): Promise<ApiError> {
  const answer = await expectError(response, status, code);
  expect(answer.data, "an error not about a stored purchase has no data").toBeUndefined();
  return answer.error;
}

/** An error about a stored purchase: `data.top_up` and `data.points_balance` are required. */
export async function expectPurchaseError(
  response: APIResponse,
  status: number,
  code: string,
): Promise<{ error: ApiError; data: PurchaseData }> {
  const answer = await expectError(response, status, code);
  expect(answer.data, "an error about a stored purchase carries data.top_up").toBeDefined();
  return { error: answer.error, data: answer.data as PurchaseData };
}

/** `details.fields` of a 422 invalid_request names exactly these fields, each with a reason. */
export async function expectInvalidFields(response: APIResponse, fields: string[]): Promise<Record<string, string>> {
  const error = await expectPlainError(response, 422, "invalid_request");
  const given = error.details.fields as Record<string, unknown>;
  expect(typeof given).toBe("object");
  expect(Object.keys(given).sort()).toEqual([...fields].sort());
  for (const why of Object.values(given)) {
    expect(typeof why).toBe("string");
    expect(String(why).length).toBeGreaterThan(0);
  }
  return given as Record<string, string>;
}

export function expectPurchaseData(data: unknown): PurchaseData {
  expect(typeof data === "object" && data !== null).toBe(true);
  const record = data as Record<string, unknown>;
  expect(Object.keys(record).sort()).toEqual(["points_balance", "top_up"]);
  expect(Number.isInteger(record.points_balance)).toBe(true);
  expect(record.points_balance as number).toBeGreaterThanOrEqual(0);
  expectTopUp(record.top_up);
  return record as unknown as PurchaseData;
}

/** Exactly the TopUp fields, with their types and the couplings between status, failure and paid_at. */
export function expectTopUp(value: unknown, expected: Partial<TopUpJson> = {}): TopUpJson {
  expect(typeof value === "object" && value !== null).toBe(true);
  const topUp = value as TopUpJson;
  expect(Object.keys(topUp).sort()).toEqual(TOP_UP_KEYS);
  expect(topUp.id).toMatch(/^tu_\S+$/);
  expect(typeof topUp.reference).toBe("string");
  expect(Number.isInteger(topUp.points)).toBe(true);
  expect(["USD", "GBP", "EUR"]).toContain(topUp.currency);
  expect(Number.isInteger(topUp.amount)).toBe(true);
  expect(topUp.amount).toBeGreaterThan(0);
  expect(typeof topUp.payment_source_id).toBe("string");
  expect(["pending", "processing", "awaiting_payment", "failed", "paid"]).toContain(topUp.status);
  expect(["api", "dashboard"]).toContain(topUp.source);
  expect(topUp.created_at).toMatch(ISO_UTC);
  expect(
    Number.isInteger(topUp.refunded_points) && topUp.refunded_points >= 0 && topUp.refunded_points <= topUp.points,
  ).toBe(true);
  expect(
    Number.isInteger(topUp.refunded_amount) && topUp.refunded_amount >= 0 && topUp.refunded_amount <= topUp.amount,
  ).toBe(true);
  if (topUp.dispute !== null) {
    expect(Object.keys(topUp.dispute).sort()).toEqual(["closed_at", "opened_at", "points", "points_state", "status"]);
    expect(["open", "won", "lost"]).toContain(topUp.dispute.status);
    expect(["held", "removed", "released"]).toContain(topUp.dispute.points_state);
  }
  if (topUp.status === "paid") expect(topUp.paid_at).toMatch(ISO_UTC);
  else expect(topUp.paid_at).toBeNull();
  // A paid purchase's receipt page in the dashboard, absolute under the server's public URL; none before.
  if (topUp.status === "paid") expect(topUp.receipt_url).toMatch(new RegExp(`/dashboard/receipts/${topUp.id}$`));
  else expect(topUp.receipt_url).toBeNull();
  // The fixtures set no expiry for paid Points: theirs never expire.
  if (topUp.points_expire_at !== null) expect(topUp.points_expire_at).toMatch(ISO_UTC);
  if (topUp.status === "failed" || topUp.status === "awaiting_payment") {
    expect(topUp.failure).not.toBeNull();
    expect(Object.keys(topUp.failure ?? {}).sort()).toEqual(["code", "message"]);
  } else {
    expect(topUp.failure).toBeNull();
  }
  expect(topUp).toMatchObject(expected);
  return topUp;
}

export function expectPaymentMethod(value: unknown, expected: Partial<PaymentMethodJson> = {}): PaymentMethodJson {
  expect(typeof value === "object" && value !== null).toBe(true);
  const method = value as PaymentMethodJson;
  expect(Object.keys(method).sort()).toEqual(PAYMENT_METHOD_KEYS);
  expect(method).toMatchObject(expected);
  return method;
}

/** A 201 whose top-up is paid now: no Idempotent-Replayed header, since a new charge answered it. */
export async function expectPaidNow(response: APIResponse, expected: Partial<TopUpJson> = {}): Promise<PurchaseData> {
  const data = expectPurchaseData(await expectSuccess(response, 201));
  expect(response.headers()["idempotent-replayed"]).toBeUndefined();
  expectTopUp(data.top_up, { status: "paid", source: "api", ...expected });
  return data;
}

/** A 200 replay of a paid top-up, marked Idempotent-Replayed. */
export async function expectPaidReplay(
  response: APIResponse,
  expected: Partial<TopUpJson> = {},
): Promise<PurchaseData> {
  const data = expectPurchaseData(await expectSuccess(response, 200));
  expect(response.headers()["idempotent-replayed"]).toBe("true");
  expectTopUp(data.top_up, { status: "paid", ...expected });
  return data;
}

/** Retry-After in whole seconds, within (0, max]. */
export function expectRetryAfter(response: APIResponse, max: number): number {
  const header = response.headers()["retry-after"];
  expect(header, "Retry-After is present").toMatch(/^\d+$/);
  const seconds = Number(header);
  expect(seconds).toBeGreaterThan(0);
  expect(seconds).toBeLessThanOrEqual(max);
  return seconds;
}
