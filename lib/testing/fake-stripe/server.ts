import { randomBytes } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { Answer, Ctx, Reply } from "./answers";
import { createControl, type FakeStripeControl, type FakeStripeParts, type RequestLogEntry, testApi } from "./control";
import { type DeliveryLogEntry, newWebhookSecret } from "./events";
import { delayAfter, type Fault, Faults, faultAfter, faultBefore } from "./faults";
import { parseForm } from "./form";
import { IdempotencyKeys } from "./idempotency";
import { stripeId } from "./objects";
import { serveFavicon, servePage } from "./pages";
import { readState, restoreState, StateFile } from "./persist";
import { route } from "./routes";
import { Store } from "./store";

export type { FakeStripeControl, RequestLogEntry } from "./control";
export { type DeliveryLogEntry, newWebhookSecret } from "./events";
export type { FaultKind, FaultSpec } from "./faults";

/*
 * A stateful, in-memory server that answers the official stripe SDK as Stripe does, for the
 * routes this product uses: customers, payment methods (attach, detach, list), products and
 * prices (lookup keys, currency_options), PaymentIntents (off-session and on-session with 3-D
 * Secure, list, search, cancel), Checkout in setup mode, events signed and delivered as webhooks,
 * and Stripe's idempotency rules (replays, 400 on other parameters, 409 while in progress, keys
 * forgotten after 24 hours). Tests drive it with faults and a clock through `control`, or over
 * HTTP under /_test (never a Stripe path). Hosted pages live under /_pages.
 *
 * This file is the HTTP side: the API key, faults and idempotency around each call, then the
 * route table (routes.ts), whose handlers in resources/ work on the store (store.ts). With a state
 * directory the store is kept on disk (persist.ts) and each change is written before it is answered.
 */

export interface FakeStripeOptions {
  port?: number;
  host?: string;
  /** Only this key is accepted; by default any sk_test_ key is. */
  apiKey?: string;
  webhookUrl?: string;
  webhookSecret?: string;
  /**
   * Keeps the state in this directory and starts from what it holds, its keys included (they win
   * over `apiKey` and `webhookSecret`, which are used, or generated, only for a new directory).
   * Without it, everything is in memory and gone when the server stops.
   */
  stateDir?: string;
  /** Told one line per request (method, path, status, idempotency key) and per webhook delivery. */
  log?: (line: string) => void;
}

export interface FakeStripe {
  url: string;
  host: string;
  port: number;
  /** The only key accepted, or undefined when any sk_test_ key is. */
  apiKey: string | undefined;
  /** The secret webhooks are signed with, when one was given or kept. */
  webhookSecret: string | undefined;
  /** Whether the state came from the state directory rather than starting empty. */
  restored: boolean;
  control: FakeStripeControl;
  close(): Promise<void>;
}

/** Starts the server on 127.0.0.1 (an ephemeral port unless one is given). */
export async function startFakeStripe(given: FakeStripeOptions = {}): Promise<FakeStripe> {
  const saved = given.stateDir ? readState(given.stateDir) : null;
  const options: FakeStripeOptions = given.stateDir
    ? {
        ...given,
        apiKey: saved?.secretKey ?? given.apiKey ?? `sk_test_${randomBytes(12).toString("hex")}`,
        webhookSecret: saved?.webhookSecret ?? given.webhookSecret ?? newWebhookSecret(),
      }
    : given;
  const onDelivery = options.log && deliveryLine(options.log);
  const store = new Store({ url: options.webhookUrl, secret: options.webhookSecret, onDelivery });
  const parts: FakeStripeParts = { store, keys: new IdempotencyKeys(store.clock), faults: new Faults(), requests: [] };
  if (saved) restoreState(saved, store, parts.keys);
  const state =
    options.stateDir && options.apiKey && options.webhookSecret
      ? StateFile.of(options.stateDir, store, parts.keys, {
          secretKey: options.apiKey,
          webhookSecret: options.webhookSecret,
        })
      : null;
  const control = createControl(parts);
  const server = http.createServer((request, response) => {
    if (options.log) response.on("close", () => options.log?.(requestLine(request, response)));
    handle(parts, control, options, request, response, state).catch((error: unknown) => {
      if (!response.headersSent) {
        response.writeHead(500, { "Content-Type": "application/json" });
        response.end(JSON.stringify({ error: { type: "api_error", message: String(error) } }));
      }
    });
  });
  const host = options.host ?? "127.0.0.1";
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, host, resolve);
  });
  const { port } = server.address() as AddressInfo;
  store.baseUrl = `http://${host}:${port}`;
  // A new directory gets its keys at once, so a restart before the first request keeps them too.
  await state?.save();
  return {
    url: store.baseUrl,
    host,
    port,
    apiKey: options.apiKey,
    webhookSecret: options.webhookSecret,
    restored: saved !== null,
    control,
    close: async () => {
      await new Promise<void>((resolve) => {
        control.releaseHeld();
        server.closeAllConnections();
        server.close(() => resolve());
      });
      await state?.save();
    },
  };
}

/** The one read that can change state: a processing payment on a `settlesWhenAsked` card settles when retrieved. */
const SETTLES_WHEN_READ = /^\/v1\/payment_intents\/[^/]+$/;

/** `POST /v1/payment_intents 200 idempotency-key=…`: what a request asked and what it was answered. */
function requestLine(request: http.IncomingMessage, response: http.ServerResponse): string {
  const path = new URL(request.url ?? "/", "http://fake.stripe").pathname;
  const status = response.writableFinished ? String(response.statusCode) : "dropped";
  const key = request.method === "POST" ? headerOf(request, "idempotency-key") : undefined;
  const replayed = response.getHeader("Idempotent-Replayed") === "true" ? " (replayed)" : "";
  return `${request.method ?? "GET"} ${path} ${status}${key ? ` idempotency-key=${key}` : ""}${replayed}`;
}

function deliveryLine(log: (line: string) => void): (entry: DeliveryLogEntry) => void {
  return (entry) =>
    log(`webhook ${entry.type} ${entry.eventId} -> ${entry.status === -1 ? "unreachable" : entry.status}`);
}

async function handle(
  parts: FakeStripeParts,
  control: FakeStripeControl,
  options: FakeStripeOptions,
  request: http.IncomingMessage,
  response: http.ServerResponse,
  state: StateFile | null,
): Promise<void> {
  const url = new URL(request.url ?? "/", "http://fake.stripe");
  const method = request.method ?? "GET";
  const body = await readBody(request);
  const requestId = stripeId("req");
  const send = (status: number, payload: unknown, headers: Record<string, string> = {}) => {
    // setHeader (not writeHead's object) keeps them readable for the request's log line.
    for (const [name, value] of Object.entries({
      "Content-Type": "application/json",
      "Request-Id": requestId,
      ...headers,
    })) {
      response.setHeader(name, value);
    }
    response.writeHead(status);
    response.end(JSON.stringify(payload));
  };

  if (url.pathname === "/favicon.ico") return serveFavicon(response);
  if (url.pathname.startsWith("/_pages/")) {
    servePage(parts.store, method, url, body, response);
    return state?.save();
  }
  if (url.pathname.startsWith("/_test/")) {
    const answer = await testApi(
      control,
      method,
      url.pathname,
      body ? (JSON.parse(body) as Record<string, unknown>) : {},
    );
    if (method !== "GET") await state?.save();
    return send(answer.status, answer.body);
  }

  const auth = request.headers.authorization ?? "";
  const key = /^Bearer (.+)$/.exec(auth)?.[1] ?? "";
  const keyOk = options.apiKey ? key === options.apiKey : /^sk_test_[A-Za-z0-9_]+$/.test(key);
  if (!keyOk) {
    return send(401, {
      error: {
        type: "invalid_request_error",
        message: key ? `Invalid API Key provided: ${key.slice(0, 8)}****` : "You did not provide an API key.",
      },
    });
  }

  const form = method === "POST" ? parseForm(body) : {};
  const ctx: Ctx = { method, path: url.pathname, query: parseForm(url.search.slice(1)), form, params: [] };
  const idempotencyKey = method === "POST" ? (headerOf(request, "idempotency-key") ?? null) : null;
  const fault = parts.faults.take(method, url.pathname);
  const entry: RequestLogEntry = {
    method,
    path: url.pathname,
    idempotencyKey,
    replayed: false,
    status: 0,
    fault: fault?.kind ?? null,
  };
  parts.requests.push(entry);
  const reply = await call(parts, ctx, key, entry, fault);
  if (method !== "GET" || SETTLES_WHEN_READ.test(url.pathname)) await state?.save();
  entry.status = reply === "drop" ? -1 : reply.status;
  if (reply === "drop") request.socket.destroy();
  else send(reply.status, reply.body, reply.headers);
}

/**
 * One Stripe API call through faults and idempotency: a fault may answer first; a used key
 * replays or refuses; otherwise the route runs, the key keeps its answer, and a fault may still
 * drop the connection or answer 500 after it ran.
 */
async function call(
  parts: FakeStripeParts,
  ctx: Ctx,
  apiKey: string,
  entry: RequestLogEntry,
  fault: Fault | undefined,
): Promise<Reply> {
  const refused = await faultBefore(fault);
  if (refused) return refused;
  const key = entry.idempotencyKey;
  if (key) {
    const prior = parts.keys.claim(apiKey, key, `${ctx.method} ${ctx.path}`, JSON.stringify(ctx.form));
    if (prior?.kind === "refused") return prior.answer;
    if (prior?.kind === "replay") {
      // The replay is "executed" (answered from storage); an execute_then_drop fault drops it again.
      entry.replayed = true;
      return executed(prior.answer, fault, { "Idempotent-Replayed": "true" });
    }
  }
  if (fault?.kind === "hold") await parts.faults.hold();
  const answer = faultAfter(fault, route(parts.store, ctx));
  if (key) parts.keys.settle(apiKey, key, answer);
  await delayAfter(fault);
  return executed(answer, fault);
}

/** An answer the route gave (now or first time): Stripe says not to retry a 5xx it executed. */
function executed(answer: Answer, fault: Fault | undefined, headers: Record<string, string> = {}): Reply {
  if (fault?.kind === "execute_then_drop") return "drop";
  const retry: Record<string, string> = answer.status >= 500 ? { "Stripe-Should-Retry": "false" } : {};
  return { status: answer.status, body: answer.body, headers: { ...headers, ...retry } };
}

function headerOf(request: http.IncomingMessage, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function readBody(request: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    request.on("error", reject);
  });
}
