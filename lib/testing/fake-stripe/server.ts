import { createHmac, randomBytes } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import type Stripe from "stripe";
import { CHECKOUT_CARDS, TEST_CARD_TOKENS, type TestCard } from "./cards";
import { bool, type FormObject, int, list, metadataOf, obj, parseForm, str } from "./form";
import {
  checkoutSessionObject,
  customerObject,
  paymentIntentObject,
  paymentMethodObject,
  priceObject,
  productObject,
  setupIntentObject,
  stripeId,
  type WireCurrencyOption,
  type WirePrice,
} from "./objects";

/*
 * A stateful, in-memory server that answers the official stripe SDK as Stripe does, for the
 * routes this product uses: customers, payment methods (attach, detach, list), products and
 * prices (lookup keys, currency_options), PaymentIntents (off-session and on-session with 3-D
 * Secure, list, search, cancel), Checkout in setup mode, events signed and delivered as webhooks,
 * and Stripe's idempotency rules (replays, 400 on other parameters, 409 while in progress, keys
 * forgotten after 24 hours). Tests drive it with faults and a clock through `control`, or over
 * HTTP under /_test (never a Stripe path). Hosted pages live under /_pages.
 */

const DAY_MS = 24 * 60 * 60 * 1000;

export type FaultKind = "delay" | "500_before" | "execute_then_drop" | "execute_then_500" | "hold" | "409" | "drop_before";

export interface FaultSpec {
  method?: string;
  /** Matched against the path (without the query): a prefix, or a RegExp source when it starts with ^. */
  path: string;
  kind: FaultKind;
  delayMs?: number;
  /** How many requests it applies to (default 1); Infinity for a switch until cleared. */
  times?: number;
}

interface Fault extends Required<Omit<FaultSpec, "delayMs">> {
  delayMs: number;
}

export interface RequestLogEntry {
  method: string;
  path: string;
  idempotencyKey: string | null;
  replayed: boolean;
  status: number;
  fault: FaultKind | null;
}

export interface DeliveryLogEntry {
  eventId: string;
  type: string;
  /** The endpoint's HTTP status, or -1 when it could not be reached. */
  status: number;
  /** The start of what the endpoint answered (its first 1,000 characters), as Stripe's dashboard shows it. */
  answer: string;
}

interface StoredResponse {
  endpoint: string;
  params: string;
  createdAt: number;
  done: boolean;
  status: number;
  body: unknown;
}

interface Answer {
  status: number;
  body: unknown;
  /** Not stored under an idempotency key (validation errors, as Stripe documents). */
  transient?: boolean;
}

class StripeFakeError extends Error {
  constructor(
    readonly status: number,
    readonly body: { error: Record<string, unknown> },
    readonly transient: boolean,
  ) {
    super(String(body.error.message));
  }
}

const invalid = (message: string, extra: Record<string, unknown> = {}) =>
  new StripeFakeError(400, { error: { type: "invalid_request_error", message, ...extra } }, true);
const missing = (kind: string, id: string, param = "id") =>
  new StripeFakeError(
    404,
    { error: { type: "invalid_request_error", code: "resource_missing", param, message: `No such ${kind}: '${id}'` } },
    true,
  );

export interface FakeStripeOptions {
  port?: number;
  host?: string;
  /** Only this key is accepted; by default any sk_test_ key is. */
  apiKey?: string;
  webhookUrl?: string;
  webhookSecret?: string;
}

export interface FakeStripe {
  url: string;
  host: string;
  port: number;
  control: FakeStripeControl;
  close(): Promise<void>;
}

/** Starts the server on 127.0.0.1 (an ephemeral port unless one is given). */
export async function startFakeStripe(options: FakeStripeOptions = {}): Promise<FakeStripe> {
  const state = new FakeStripeState(options);
  const server = http.createServer((request, response) => {
    state.handle(request, response).catch((error: unknown) => {
      if (!response.headersSent) {
        response.writeHead(500, { "Content-Type": "application/json" });
        response.end(JSON.stringify({ error: { type: "api_error", message: String(error) } }));
      }
    });
  });
  const host = options.host ?? "127.0.0.1";
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, host, resolve));
  const { port } = server.address() as AddressInfo;
  state.baseUrl = `http://${host}:${port}`;
  return {
    url: state.baseUrl,
    host,
    port,
    control: state.control,
    close: () =>
      new Promise<void>((resolve) => {
        state.control.releaseHeld();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

interface Ctx {
  method: string;
  path: string;
  query: FormObject;
  form: FormObject;
  params: string[];
}

type Route = [method: string, pattern: RegExp, handler: (ctx: Ctx) => Answer | Promise<Answer>];

/** The in-process test API; /_test over HTTP offers the same. */
export interface FakeStripeControl {
  /** Queues a fault for the next matching request(s). */
  fault(spec: FaultSpec): void;
  /** Drops queued faults: all of them, or only those queued for exactly this method and path. */
  clearFaults(filter?: { method?: string; path?: string }): void;
  /** Releases every request held by a `hold` fault. */
  releaseHeld(): void;
  heldCount(): number;
  /** Moves the server's clock (object timestamps, the 24-hour key expiry). */
  advanceClock(ms: number): void;
  now(): number;
  requests(filter?: { method?: string; path?: string }): RequestLogEntry[];
  paymentIntents(filter?: { customer?: string }): Stripe.PaymentIntent[];
  /** The cardholder's step on the 3-D Secure page, without a browser. */
  completeAuthentication(paymentIntentId: string, succeed: boolean): Stripe.PaymentIntent;
  /** A processing PaymentIntent settles (a bank debit clearing, or failing). */
  settleProcessing(paymentIntentId: string, succeed: boolean): Stripe.PaymentIntent;
  events(): Stripe.Event[];
  /** Deliveries wait until released; `order` then says in which order they go. */
  holdDeliveries(): void;
  releaseDeliveries(order?: "sent" | "reverse"): Promise<void>;
  /** The next event is delivered twice. */
  duplicateNextDelivery(): void;
  redeliver(eventId: string): Promise<number>;
  deliveries(): DeliveryLogEntry[];
  /** Resolves when every delivery started so far has been answered. */
  settled(): Promise<void>;
  setWebhook(url: string | null, secret?: string): void;
  reset(): void;
}

class FakeStripeState {
  baseUrl = "";
  private clockOffset = 0;
  private customers = new Map<string, Stripe.Customer>();
  private methods = new Map<string, { method: Stripe.PaymentMethod; card: TestCard }>();
  private products = new Map<string, Stripe.Product>();
  private prices = new Map<string, { price: WirePrice; options: Record<string, WireCurrencyOption> }>();
  private intents = new Map<string, Stripe.PaymentIntent>();
  private sessions = new Map<string, Stripe.Checkout.Session>();
  private setupIntents = new Map<string, Stripe.SetupIntent>();
  private eventList: Stripe.Event[] = [];
  private keys = new Map<string, StoredResponse>();
  private faults: Fault[] = [];
  private held: (() => void)[] = [];
  private log: RequestLogEntry[] = [];
  private deliveryLog: DeliveryLogEntry[] = [];
  private deliveriesHeld = false;
  private heldDeliveries: Stripe.Event[] = [];
  private duplicateNext = false;
  private inflight = new Set<Promise<unknown>>();
  private webhookUrl: string | null;
  private webhookSecret: string;

  constructor(private readonly options: FakeStripeOptions) {
    this.webhookUrl = options.webhookUrl ?? null;
    this.webhookSecret = options.webhookSecret ?? "whsec_fake";
  }

  private nowMs(): number {
    return Date.now() + this.clockOffset;
  }
  private seconds(): number {
    return Math.floor(this.nowMs() / 1000);
  }

  readonly control: FakeStripeControl = {
    fault: (spec) => this.faults.push({ method: spec.method ?? "", times: 1, delayMs: 0, ...spec }),
    clearFaults: (filter) => {
      this.faults = filter
        ? this.faults.filter(
            (fault) => (filter.method !== undefined && fault.method !== filter.method) || (filter.path !== undefined && fault.path !== filter.path),
          )
        : [];
    },
    releaseHeld: () => {
      for (const release of this.held.splice(0)) release();
    },
    heldCount: () => this.held.length,
    advanceClock: (ms) => {
      this.clockOffset += ms;
    },
    now: () => this.nowMs(),
    requests: (filter = {}) =>
      this.log.filter(
        (entry) =>
          (!filter.method || entry.method === filter.method) && (!filter.path || entry.path.startsWith(filter.path)),
      ),
    paymentIntents: (filter = {}) =>
      [...this.intents.values()].filter((intent) => !filter.customer || intent.customer === filter.customer),
    completeAuthentication: (id, succeed) => this.finishAuthentication(id, succeed),
    settleProcessing: (id, succeed) => {
      const intent = this.intent(id);
      if (intent.status !== "processing") throw new Error(`${id} is ${intent.status}, not processing`);
      if (succeed) this.succeed(intent);
      else this.decline(intent, { code: "card_declined", decline_code: "generic_decline", message: "Your card was declined." });
      return intent;
    },
    events: () => [...this.eventList],
    holdDeliveries: () => {
      this.deliveriesHeld = true;
    },
    releaseDeliveries: async (order = "sent") => {
      this.deliveriesHeld = false;
      const events = this.heldDeliveries.splice(0);
      if (order === "reverse") events.reverse();
      for (const event of events) await this.deliver(event);
    },
    duplicateNextDelivery: () => {
      this.duplicateNext = true;
    },
    redeliver: async (eventId) => {
      const event = this.eventList.find((candidate) => candidate.id === eventId);
      if (!event) throw new Error(`No event ${eventId}`);
      return this.deliver(event);
    },
    deliveries: () => [...this.deliveryLog],
    settled: async () => {
      while (this.inflight.size > 0) await Promise.allSettled([...this.inflight]);
    },
    setWebhook: (url, secret) => {
      this.webhookUrl = url;
      if (secret) this.webhookSecret = secret;
    },
    reset: () => {
      this.customers.clear();
      this.methods.clear();
      this.products.clear();
      this.prices.clear();
      this.intents.clear();
      this.sessions.clear();
      this.setupIntents.clear();
      this.eventList = [];
      this.keys.clear();
      this.faults = [];
      this.log = [];
      this.deliveryLog = [];
      this.clockOffset = 0;
      this.control.releaseHeld();
    },
  };

  // ---- HTTP ---------------------------------------------------------------------------------

  async handle(request: http.IncomingMessage, response: http.ServerResponse): Promise<void> {
    const url = new URL(request.url ?? "/", "http://fake.stripe");
    const method = request.method ?? "GET";
    const body = await readBody(request);
    const requestId = stripeId("req");
    const send = (status: number, payload: unknown, headers: Record<string, string> = {}) => {
      response.writeHead(status, { "Content-Type": "application/json", "Request-Id": requestId, ...headers });
      response.end(JSON.stringify(payload));
    };

    if (url.pathname.startsWith("/_pages/")) return this.page(method, url, body, response);
    if (url.pathname.startsWith("/_test/")) {
      const answer = await this.testApi(method, url.pathname, body ? (JSON.parse(body) as Record<string, unknown>) : {});
      return send(answer.status, answer.body);
    }

    const auth = request.headers.authorization ?? "";
    const key = /^Bearer (.+)$/.exec(auth)?.[1] ?? "";
    const keyOk = this.options.apiKey ? key === this.options.apiKey : /^sk_test_[A-Za-z0-9_]+$/.test(key);
    if (!keyOk) {
      return send(401, {
        error: {
          type: "invalid_request_error",
          message: key ? `Invalid API Key provided: ${key.slice(0, 8)}****` : "You did not provide an API key.",
        },
      });
    }

    const form = method === "POST" ? parseForm(body) : {};
    const query = parseForm(url.search.slice(1));
    const idempotencyKey = method === "POST" ? (headerOf(request, "idempotency-key") ?? null) : null;
    const fault = this.takeFault(method, url.pathname);
    const logEntry: RequestLogEntry = { method, path: url.pathname, idempotencyKey, replayed: false, status: 0, fault: fault?.kind ?? null };
    this.log.push(logEntry);

    if (fault?.kind === "delay") await sleep(fault.delayMs);
    if (fault?.kind === "drop_before") {
      logEntry.status = -1;
      request.socket.destroy();
      return;
    }
    if (fault?.kind === "500_before") {
      logEntry.status = 500;
      return send(500, { error: { type: "api_error", message: "An unknown error occurred (injected before executing)." } });
    }
    if (fault?.kind === "409") {
      logEntry.status = 409;
      return send(409, {
        error: { type: "invalid_request_error", code: "lock_timeout", message: "This object cannot be accessed right now (injected)." },
      });
    }

    const endpoint = `${method} ${url.pathname}`;
    const scoped = idempotencyKey ? `${key}|${idempotencyKey}` : null;
    if (scoped) {
      const stored = this.keys.get(scoped);
      if (stored && this.nowMs() - stored.createdAt > DAY_MS) this.keys.delete(scoped);
      const current = this.keys.get(scoped);
      if (current) {
        const params = JSON.stringify(form);
        if (!current.done) {
          logEntry.status = 409;
          return send(409, {
            error: {
              type: "invalid_request_error",
              code: "idempotency_key_in_use",
              message: `There is currently another in-progress request using this Idempotent Key (that probably means you submitted twice, and the other request is still going through): ${idempotencyKey}. Please try again later.`,
            },
          });
        }
        if (current.endpoint !== endpoint || current.params !== params) {
          logEntry.status = 400;
          return send(400, {
            error: {
              type: "idempotency_error",
              message: `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${idempotencyKey}' if you meant to execute a different request.`,
            },
          });
        }
        logEntry.status = current.status;
        logEntry.replayed = true;
        if (fault?.kind === "execute_then_drop") {
          // The replay is "executed" (answered from storage), then the connection drops again.
          logEntry.status = -1;
          request.socket.destroy();
          return;
        }
        return send(current.status, current.body, {
          "Idempotent-Replayed": "true",
          ...(current.status >= 500 ? { "Stripe-Should-Retry": "false" } : {}),
        });
      }
      this.keys.set(scoped, { endpoint, params: JSON.stringify(form), createdAt: this.nowMs(), done: false, status: 0, body: null });
    }

    if (fault?.kind === "hold") await new Promise<void>((resolve) => this.held.push(resolve));

    let answer: Answer;
    try {
      answer = await this.route({ method, path: url.pathname, query, form, params: [] });
    } catch (error) {
      if (!(error instanceof StripeFakeError)) throw error;
      answer = { status: error.status, body: error.body, transient: error.transient };
    }
    if (fault?.kind === "execute_then_500") {
      answer = {
        status: 500,
        body: { error: { type: "api_error", message: "An unknown error occurred (injected after executing)." } },
      };
    }
    if (scoped) {
      const entry = this.keys.get(scoped);
      if (answer.transient) this.keys.delete(scoped);
      else if (entry) Object.assign(entry, { done: true, status: answer.status, body: answer.body });
    }
    logEntry.status = answer.status;
    if (fault?.kind === "execute_then_drop") {
      logEntry.status = -1;
      request.socket.destroy();
      return;
    }
    send(answer.status, answer.body, answer.status >= 500 ? { "Stripe-Should-Retry": "false" } : {});
  }

  private takeFault(method: string, path: string): Fault | undefined {
    const index = this.faults.findIndex(
      (fault) =>
        (!fault.method || fault.method === method) &&
        (fault.path.startsWith("^") ? new RegExp(fault.path).test(path) : path.startsWith(fault.path)),
    );
    const fault = this.faults[index];
    if (!fault) return undefined;
    fault.times -= 1;
    if (fault.times <= 0) this.faults.splice(index, 1);
    return fault;
  }

  private routes: Route[] = [
    ["POST", /^\/v1\/customers$/, (c) => this.createCustomer(c.form)],
    ["GET", /^\/v1\/customers\/search$/, (c) => this.searchCustomers(c)],
    ["GET", /^\/v1\/customers\/([^/]+)$/, (c) => ok(this.customer(c.params[0] ?? ""))],
    ["POST", /^\/v1\/customers\/([^/]+)$/, (c) => this.updateCustomer(c.params[0] ?? "", c.form)],
    ["GET", /^\/v1\/customers\/([^/]+)\/payment_methods$/, (c) => this.listMethods(c, c.params[0] ?? "")],
    ["GET", /^\/v1\/payment_methods$/, (c) => this.listMethods(c, str(c.query, "customer") ?? "")],
    ["GET", /^\/v1\/payment_methods\/([^/]+)$/, (c) => ok(this.method(c.params[0] ?? "").method)],
    ["POST", /^\/v1\/payment_methods\/([^/]+)\/attach$/, (c) => this.attach(c.params[0] ?? "", c.form)],
    ["POST", /^\/v1\/payment_methods\/([^/]+)\/detach$/, (c) => this.detach(c.params[0] ?? "")],
    ["POST", /^\/v1\/payment_methods\/([^/]+)$/, (c) => this.updateMethod(c.params[0] ?? "", c.form)],
    ["POST", /^\/v1\/products$/, (c) => this.createProduct(c.form)],
    ["GET", /^\/v1\/products\/([^/]+)$/, (c) => ok(this.product(c.params[0] ?? ""))],
    ["POST", /^\/v1\/prices$/, (c) => this.createPrice(c.form)],
    ["GET", /^\/v1\/prices$/, (c) => this.listPrices(c)],
    ["GET", /^\/v1\/prices\/([^/]+)$/, (c) => ok(this.priceWire(c.params[0] ?? "", expands(c.query).has("currency_options")))],
    ["POST", /^\/v1\/prices\/([^/]+)$/, (c) => this.updatePrice(c.params[0] ?? "", c.form)],
    ["POST", /^\/v1\/payment_intents$/, (c) => this.createIntent(c.form)],
    ["GET", /^\/v1\/payment_intents$/, (c) => this.listIntents(c)],
    ["GET", /^\/v1\/payment_intents\/search$/, (c) => this.searchIntents(c)],
    ["GET", /^\/v1\/payment_intents\/([^/]+)$/, (c) => ok(this.retrieveIntent(c.params[0] ?? ""))],
    ["POST", /^\/v1\/payment_intents\/([^/]+)\/confirm$/, (c) => this.confirmIntent(c.params[0] ?? "", c.form)],
    ["POST", /^\/v1\/payment_intents\/([^/]+)\/cancel$/, (c) => this.cancelIntent(c.params[0] ?? "", c.form)],
    ["POST", /^\/v1\/checkout\/sessions$/, (c) => this.createSession(c.form)],
    ["GET", /^\/v1\/checkout\/sessions\/([^/]+)$/, (c) => this.retrieveSession(c.params[0] ?? "", expands(c.query))],
    ["GET", /^\/v1\/setup_intents\/([^/]+)$/, (c) => ok(this.setupIntent(c.params[0] ?? ""))],
    ["GET", /^\/v1\/events$/, (c) => ok(this.page_(this.eventList.slice().reverse(), c, "/v1/events"))],
    ["GET", /^\/v1\/events\/([^/]+)$/, (c) => ok(this.event(c.params[0] ?? ""))],
  ];

  private async route(ctx: Ctx): Promise<Answer> {
    for (const [method, pattern, handler] of this.routes) {
      if (method !== ctx.method) continue;
      const match = pattern.exec(ctx.path);
      if (match) return handler({ ...ctx, params: match.slice(1).map(decodeURIComponent) });
    }
    throw new StripeFakeError(
      404,
      { error: { type: "invalid_request_error", message: `Unrecognized request URL (${ctx.method}: ${ctx.path}).` } },
      true,
    );
  }

  // ---- customers ------------------------------------------------------------------------------

  private createCustomer(form: FormObject): Answer {
    const customer = customerObject({
      id: stripeId("cus"),
      created: this.seconds(),
      name: str(form, "name") ?? null,
      email: str(form, "email") ?? null,
      metadata: metadataOf(form),
    });
    this.customers.set(customer.id, customer);
    const token = str(form, "payment_method");
    if (token) this.attachTo(this.resolveMethod(token), customer.id);
    const defaultId = str(obj(form, "invoice_settings") ?? {}, "default_payment_method");
    if (defaultId) this.setDefault(customer, defaultId);
    this.emit("customer.created", customer);
    return ok(customer);
  }

  private customer(id: string): Stripe.Customer {
    const customer = this.customers.get(id);
    if (!customer) throw missing("customer", id);
    return customer;
  }

  private updateCustomer(id: string, form: FormObject): Answer {
    const customer = this.customer(id);
    const name = form.name;
    if (typeof name === "string") customer.name = name || null;
    const email = form.email;
    if (typeof email === "string") customer.email = email || null;
    customer.metadata = metadataOf(form, customer.metadata);
    const settings = obj(form, "invoice_settings");
    if (settings && typeof settings.default_payment_method === "string") {
      if (settings.default_payment_method === "") customer.invoice_settings.default_payment_method = null;
      else this.setDefault(customer, settings.default_payment_method);
    }
    this.emit("customer.updated", customer);
    return ok(customer);
  }

  private setDefault(customer: Stripe.Customer, methodId: string): void {
    const entry = this.methods.get(methodId);
    if (!entry || entry.method.customer !== customer.id) {
      throw invalid(`No such PaymentMethod: '${methodId}'; it must be attached to customer ${customer.id} first.`, {
        code: "resource_missing",
        param: "invoice_settings[default_payment_method]",
      });
    }
    customer.invoice_settings.default_payment_method = methodId;
  }

  private searchCustomers(ctx: Ctx): Answer {
    const query = str(ctx.query, "query") ?? "";
    const matches = [...this.customers.values()].filter((customer) => matchesQuery(query, customer.metadata, { email: customer.email }));
    return ok({ object: "search_result", url: "/v1/customers/search", has_more: false, next_page: null, data: matches });
  }

  // ---- payment methods ------------------------------------------------------------------------

  /** A pm_… id, or a test token that makes a new one (as Stripe's test mode does). */
  private resolveMethod(idOrToken: string): string {
    if (this.methods.has(idOrToken)) return idOrToken;
    const card = TEST_CARD_TOKENS[idOrToken];
    if (!card) throw missing("PaymentMethod", idOrToken, "payment_method");
    const year = new Date(this.nowMs()).getUTCFullYear();
    const method = paymentMethodObject({
      id: stripeId("pm"),
      created: this.seconds(),
      card,
      expYear: card.expired ? year - 1 : year + 4,
    });
    this.methods.set(method.id, { method, card });
    return method.id;
  }

  private method(id: string): { method: Stripe.PaymentMethod; card: TestCard } {
    const entry = this.methods.get(id);
    if (!entry) throw missing("PaymentMethod", id);
    return entry;
  }

  private attach(idOrToken: string, form: FormObject): Answer {
    const customerId = str(form, "customer");
    if (!customerId) throw invalid("Missing required param: customer.", { code: "parameter_missing", param: "customer" });
    this.customer(customerId);
    const card = TEST_CARD_TOKENS[idOrToken];
    if (card && card.attach !== "ok") {
      // Stripe checks the card when attaching; its decline cards fail here, and are stored as such.
      throw new StripeFakeError(
        402,
        { error: { type: "card_error", ...card.attach, param: "", doc_url: "https://stripe.com/docs/error-codes/card-declined" } },
        false,
      );
    }
    const id = this.resolveMethod(idOrToken);
    return ok(this.attachTo(id, customerId));
  }

  private attachTo(id: string, customerId: string): Stripe.PaymentMethod {
    const { method } = this.method(id);
    if (method.customer && method.customer !== customerId) {
      throw invalid("The payment method you provided has already been attached to a customer.");
    }
    method.customer = customerId;
    this.emit("payment_method.attached", method);
    return method;
  }

  private detach(id: string): Answer {
    const { method } = this.method(id);
    if (!method.customer) throw invalid(`The payment method you provided is not attached to a customer so detachment is impossible.`);
    const customer = this.customers.get(typeof method.customer === "string" ? method.customer : method.customer.id);
    if (customer?.invoice_settings.default_payment_method === id) customer.invoice_settings.default_payment_method = null;
    method.customer = null;
    this.emit("payment_method.detached", method);
    return ok(method);
  }

  private updateMethod(id: string, form: FormObject): Answer {
    const { method } = this.method(id);
    method.metadata = metadataOf(form, method.metadata ?? {});
    const card = obj(form, "card");
    if (card && method.card) {
      // Stripe lets a saved card's expiry be updated (the cardholder's new card, same number).
      if (!method.customer) throw invalid("You must save this PaymentMethod to a customer before you can update it.");
      const month = int(card, "exp_month");
      const year = int(card, "exp_year");
      if (month !== undefined && (month < 1 || month > 12)) throw invalid("Your card's expiration month is invalid.", { param: "card[exp_month]" });
      if (month !== undefined) method.card.exp_month = month;
      if (year !== undefined) method.card.exp_year = year;
    }
    this.emit("payment_method.updated", method);
    return ok(method);
  }

  private listMethods(ctx: Ctx, customerId: string): Answer {
    if (!customerId) throw invalid("Missing required param: customer.", { code: "parameter_missing", param: "customer" });
    this.customer(customerId);
    const type = str(ctx.query, "type");
    const methods = [...this.methods.values()]
      .map((entry) => entry.method)
      .filter((method) => method.customer === customerId && (!type || method.type === type))
      .reverse();
    return ok(this.page_(methods, ctx, `/v1/customers/${customerId}/payment_methods`));
  }

  // ---- products and prices --------------------------------------------------------------------

  private createProduct(form: FormObject): Answer {
    const name = str(form, "name");
    if (!name) throw invalid("Missing required param: name.", { code: "parameter_missing", param: "name" });
    const product = productObject({ id: str(form, "id") ?? stripeId("prod"), created: this.seconds(), name, metadata: metadataOf(form) });
    if (this.products.has(product.id)) throw invalid(`Product already exists.`, { code: "resource_already_exists" });
    this.products.set(product.id, product);
    return ok(product);
  }

  private product(id: string): Stripe.Product {
    const product = this.products.get(id);
    if (!product) throw missing("product", id);
    return product;
  }

  private createPrice(form: FormObject): Answer {
    const productId = str(form, "product");
    const currency = str(form, "currency");
    const amount = int(form, "unit_amount");
    if (!productId) throw invalid("Missing required param: product.", { code: "parameter_missing", param: "product" });
    if (!currency) throw invalid("Missing required param: currency.", { code: "parameter_missing", param: "currency" });
    if (amount === undefined || amount < 0) throw invalid("Invalid integer: unit_amount.", { param: "unit_amount" });
    this.product(productId);
    const lookupKey = str(form, "lookup_key") ?? null;
    if (lookupKey) {
      const holder = [...this.prices.values()].find((entry) => entry.price.lookup_key === lookupKey);
      if (holder) {
        if (!bool(form, "transfer_lookup_key")) {
          throw invalid(`A price (\`${holder.price.id}\`) already uses that lookup key.`, { param: "lookup_key" });
        }
        holder.price.lookup_key = null;
      }
    }
    const options: Record<string, WireCurrencyOption> = {};
    for (const [option, value] of Object.entries(obj(form, "currency_options") ?? {})) {
      const unit = typeof value === "object" && !Array.isArray(value) ? int(value, "unit_amount") : undefined;
      if (unit === undefined) throw invalid(`Invalid currency_options[${option}].`, { param: `currency_options[${option}]` });
      options[option] = { custom_unit_amount: null, tax_behavior: "unspecified", unit_amount: unit, unit_amount_decimal: String(unit) };
    }
    const price = priceObject({
      id: stripeId("price"),
      created: this.seconds(),
      product: productId,
      currency,
      unitAmount: amount,
      lookupKey,
      metadata: metadataOf(form),
      nickname: str(form, "nickname") ?? null,
    });
    options[currency] = { custom_unit_amount: null, tax_behavior: "unspecified", unit_amount: amount, unit_amount_decimal: String(amount) };
    this.prices.set(price.id, { price, options });
    return ok(this.priceWire(price.id, false));
  }

  /** currency_options is included only when expanded, as Stripe does. */
  private priceWire(id: string, withOptions: boolean): WirePrice {
    const entry = this.prices.get(id);
    if (!entry) throw missing("price", id);
    return withOptions ? { ...entry.price, currency_options: entry.options } : entry.price;
  }

  private updatePrice(id: string, form: FormObject): Answer {
    const entry = this.prices.get(id);
    if (!entry) throw missing("price", id);
    const active = bool(form, "active");
    if (active !== undefined) entry.price.active = active;
    entry.price.metadata = metadataOf(form, entry.price.metadata);
    const lookupKey = form.lookup_key;
    if (typeof lookupKey === "string") {
      const holder = [...this.prices.values()].find((other) => other !== entry && other.price.lookup_key === lookupKey);
      if (holder && lookupKey) {
        if (!bool(form, "transfer_lookup_key")) throw invalid("A price already uses that lookup key.", { param: "lookup_key" });
        holder.price.lookup_key = null;
      }
      entry.price.lookup_key = lookupKey || null;
    }
    return ok(this.priceWire(id, false));
  }

  private listPrices(ctx: Ctx): Answer {
    const keys = list(ctx.query, "lookup_keys");
    const active = bool(ctx.query, "active");
    const product = str(ctx.query, "product");
    const withOptions = expands(ctx.query).has("data.currency_options");
    const prices = [...this.prices.values()]
      .map((entry) => entry.price)
      .filter(
        (price) =>
          (keys.length === 0 || (price.lookup_key !== null && keys.includes(price.lookup_key))) &&
          (active === undefined || price.active === active) &&
          (!product || price.product === product),
      )
      .reverse()
      .map((price) => this.priceWire(price.id, withOptions));
    return ok(this.page_(prices, ctx, "/v1/prices"));
  }

  // ---- PaymentIntents -------------------------------------------------------------------------

  private intent(id: string): Stripe.PaymentIntent {
    const intent = this.intents.get(id);
    if (!intent) throw missing("payment_intent", id);
    return intent;
  }

  private retrieveIntent(id: string): Stripe.PaymentIntent {
    const intent = this.intent(id);
    const methodId = typeof intent.payment_method === "string" ? intent.payment_method : null;
    if (intent.status === "processing" && methodId && this.methods.get(methodId)?.card.settlesWhenAsked) this.succeed(intent);
    return intent;
  }

  private createIntent(form: FormObject): Answer {
    const amount = int(form, "amount");
    const currency = str(form, "currency");
    if (amount === undefined) throw invalid("Missing required param: amount.", { code: "parameter_missing", param: "amount" });
    if (amount < 50) throw invalid("Amount must be at least 50 cents.", { code: "amount_too_small", param: "amount" });
    if (!currency) throw invalid("Missing required param: currency.", { code: "parameter_missing", param: "currency" });
    if (currency !== currency.toLowerCase()) throw invalid(`Invalid currency: ${currency}.`, { param: "currency" });
    const customerId = str(form, "customer") ?? null;
    if (customerId) this.customer(customerId);
    const token = str(form, "payment_method");
    const methodId = token ? this.resolveMethod(token) : null;
    if (methodId && customerId) {
      const owner = this.method(methodId).method.customer;
      if (owner && owner !== customerId) {
        throw invalid(`The provided PaymentMethod ${methodId} belongs to another customer.`, { param: "payment_method" });
      }
      if (!owner && !TEST_CARD_TOKENS[token ?? ""]) {
        throw invalid(`The provided PaymentMethod was previously used without being attached to a Customer or was detached from a Customer, and may not be used again.`, { param: "payment_method" });
      }
    }
    const intent = paymentIntentObject({
      id: stripeId("pi"),
      created: this.seconds(),
      amount,
      currency,
      customer: customerId,
      paymentMethod: methodId,
      metadata: metadataOf(form),
      description: str(form, "description") ?? null,
    });
    this.intents.set(intent.id, intent);
    this.emit("payment_intent.created", intent);
    if (!bool(form, "confirm")) {
      if (methodId) intent.status = "requires_confirmation";
      return ok(intent);
    }
    return this.attempt(intent, { offSession: bool(form, "off_session") ?? false, returnUrl: str(form, "return_url") });
  }

  /** One confirmation attempt with the intent's card, as Stripe runs it. */
  private attempt(intent: Stripe.PaymentIntent, options: { offSession: boolean; returnUrl?: string }): Answer {
    const methodId = typeof intent.payment_method === "string" ? intent.payment_method : intent.payment_method?.id;
    if (!methodId) throw invalid("You cannot confirm this PaymentIntent because it's missing a payment method.", { code: "payment_intent_unexpected_state" });
    const { card, method } = this.method(methodId);
    const charge = card.expired ? { code: "expired_card", message: "Your card has expired." } : card.charge;
    intent.last_payment_error = null;
    if (charge === "succeeded") {
      this.succeed(intent);
      return ok(intent);
    }
    if (charge === "processing") {
      intent.status = "processing";
      this.emit("payment_intent.processing", intent);
      return ok(intent);
    }
    if (charge === "authentication_required") {
      if (!options.offSession) {
        if (!options.returnUrl) {
          throw invalid("A return_url is needed to confirm this PaymentIntent: it requires authentication.", { param: "return_url" });
        }
        intent.status = "requires_action";
        const url = `${this.baseUrl}/_pages/3ds/${intent.id}?return_url=${encodeURIComponent(options.returnUrl)}`;
        intent.next_action = { type: "redirect_to_url", redirect_to_url: { return_url: options.returnUrl, url } };
        this.emit("payment_intent.requires_action", intent);
        return ok(intent);
      }
      return this.cardError(
        intent,
        { code: "authentication_required", decline_code: "authentication_required", message: "Your card was declined. This transaction requires authentication." },
        method,
      );
    }
    return this.cardError(intent, charge, method);
  }

  private succeed(intent: Stripe.PaymentIntent): void {
    intent.status = "succeeded";
    intent.amount_received = intent.amount;
    intent.latest_charge = stripeId("ch");
    intent.next_action = null;
    intent.last_payment_error = null;
    this.emit("payment_intent.succeeded", intent);
  }

  private decline(intent: Stripe.PaymentIntent, error: { code: string; decline_code?: string; message: string; type?: string }): void {
    intent.status = "requires_payment_method";
    intent.next_action = null;
    const methodId = typeof intent.payment_method === "string" ? intent.payment_method : intent.payment_method?.id;
    intent.last_payment_error = {
      type: (error.type ?? "card_error") as Stripe.PaymentIntent.LastPaymentError.Type,
      code: error.code as Stripe.PaymentIntent.LastPaymentError.Code,
      decline_code: error.decline_code,
      message: error.message,
      payment_method: methodId ? this.method(methodId).method : undefined,
    };
    this.emit("payment_intent.payment_failed", intent);
  }

  /** A declined attempt: the intent exists, left needing a payment method, and the answer is 402. */
  private cardError(
    intent: Stripe.PaymentIntent,
    error: { code: string; decline_code?: string; message: string },
    method: Stripe.PaymentMethod,
  ): Answer {
    this.decline(intent, error);
    const chargeId = stripeId("ch");
    return {
      status: 402,
      body: {
        error: {
          type: "card_error",
          code: error.code,
          decline_code: error.decline_code,
          message: error.message,
          charge: chargeId,
          doc_url: `https://stripe.com/docs/error-codes/${error.code.replace(/_/g, "-")}`,
          payment_method: method,
          payment_intent: intent,
          request_log_url: null,
        },
      },
    };
  }

  private confirmIntent(id: string, form: FormObject): Answer {
    const intent = this.intent(id);
    if (intent.status !== "requires_payment_method" && intent.status !== "requires_confirmation") {
      throw invalid(`This PaymentIntent's status is ${intent.status}; it cannot be confirmed.`, {
        code: "payment_intent_unexpected_state",
        payment_intent: intent,
      });
    }
    const token = str(form, "payment_method");
    if (token) intent.payment_method = this.resolveMethod(token);
    return this.attempt(intent, { offSession: bool(form, "off_session") ?? false, returnUrl: str(form, "return_url") });
  }

  private finishAuthentication(id: string, succeed: boolean): Stripe.PaymentIntent {
    const intent = this.intent(id);
    if (intent.status !== "requires_action") throw new Error(`${id} is ${intent.status}, not requires_action`);
    if (succeed) this.succeed(intent);
    else {
      this.decline(intent, {
        type: "invalid_request_error",
        code: "payment_intent_authentication_failure",
        message: "The provided PaymentMethod has failed authentication. You can provide payment_method_data or a new PaymentMethod to attempt to fulfill this PaymentIntent again.",
      });
    }
    return intent;
  }

  private cancelIntent(id: string, form: FormObject): Answer {
    const intent = this.intent(id);
    const cancellable = ["requires_payment_method", "requires_capture", "requires_confirmation", "requires_action", "processing"];
    if (!cancellable.includes(intent.status)) {
      throw invalid(
        `You cannot cancel this PaymentIntent because it has a status of ${intent.status}. Only a PaymentIntent with one of the following statuses may be canceled: ${cancellable.join(", ")}.`,
        { code: "payment_intent_unexpected_state", payment_intent: intent },
      );
    }
    intent.status = "canceled";
    intent.canceled_at = this.seconds();
    intent.cancellation_reason = (str(form, "cancellation_reason") as Stripe.PaymentIntent.CancellationReason | undefined) ?? null;
    intent.next_action = null;
    this.emit("payment_intent.canceled", intent);
    return ok(intent);
  }

  private listIntents(ctx: Ctx): Answer {
    const customer = str(ctx.query, "customer");
    const created = obj(ctx.query, "created") ?? {};
    const gte = int(created, "gte");
    const intents = [...this.intents.values()]
      .filter((intent) => (!customer || intent.customer === customer) && (gte === undefined || intent.created >= gte))
      .reverse();
    return ok(this.page_(intents, ctx, "/v1/payment_intents"));
  }

  private searchIntents(ctx: Ctx): Answer {
    const query = str(ctx.query, "query") ?? "";
    const data = [...this.intents.values()].filter((intent) =>
      matchesQuery(query, intent.metadata, { customer: typeof intent.customer === "string" ? intent.customer : null, status: intent.status }),
    );
    return ok({ object: "search_result", url: "/v1/payment_intents/search", has_more: false, next_page: null, data });
  }

  // ---- Checkout in setup mode -----------------------------------------------------------------

  private createSession(form: FormObject): Answer {
    if (str(form, "mode") !== "setup") throw invalid("This test server offers Checkout in setup mode only.", { param: "mode" });
    const customer = str(form, "customer");
    if (!customer) throw invalid("Missing required param: customer.", { code: "parameter_missing", param: "customer" });
    this.customer(customer);
    const successUrl = str(form, "success_url");
    if (!successUrl) throw invalid("Missing required param: success_url.", { code: "parameter_missing", param: "success_url" });
    const id = stripeId("cs_test");
    const session = checkoutSessionObject({
      id,
      created: this.seconds(),
      customer,
      successUrl,
      cancelUrl: str(form, "cancel_url") ?? null,
      url: `${this.baseUrl}/_pages/checkout/${id}`,
      metadata: metadataOf(form),
      currency: str(form, "currency") ?? null,
    });
    this.sessions.set(id, session);
    return ok(session);
  }

  private retrieveSession(id: string, expand: Set<string>): Answer {
    const session = this.sessions.get(id);
    if (!session) throw missing("checkout.session", id);
    const setupId = typeof session.setup_intent === "string" ? session.setup_intent : null;
    if (!expand.has("setup_intent") || !setupId) return ok(session);
    const setup = { ...this.setupIntent(setupId) };
    if (expand.has("setup_intent.payment_method") && typeof setup.payment_method === "string") {
      setup.payment_method = this.method(setup.payment_method).method;
    }
    return ok({ ...session, setup_intent: setup });
  }

  private setupIntent(id: string): Stripe.SetupIntent {
    const setup = this.setupIntents.get(id);
    if (!setup) throw missing("setup_intent", id);
    return setup;
  }

  private completeSession(id: string, token: string): Stripe.Checkout.Session {
    const session = this.sessions.get(id);
    if (session?.status !== "open") throw new Error("This Checkout session is not open.");
    const customer = typeof session.customer === "string" ? session.customer : "";
    const methodId = this.resolveMethod(token);
    this.attachTo(methodId, customer);
    const setup = setupIntentObject({ id: stripeId("seti"), created: this.seconds(), customer, paymentMethod: methodId });
    this.setupIntents.set(setup.id, setup);
    this.emit("setup_intent.succeeded", setup);
    session.setup_intent = setup.id;
    session.status = "complete";
    this.emit("checkout.session.completed", session);
    return session;
  }

  // ---- hosted pages ---------------------------------------------------------------------------

  private page(method: string, url: URL, body: string, response: http.ServerResponse): void {
    const html = (status: number, content: string): void => {
      response.writeHead(status, { "Content-Type": "text/html; charset=utf-8" });
      response.end(
        `<!doctype html><html><head><meta charset="utf-8"><title>Test server</title></head><body style="font-family:sans-serif;max-width:32rem;margin:3rem auto">${content}</body></html>`,
      );
    };
    const redirect = (location: string): void => {
      response.writeHead(303, { Location: location });
      response.end();
    };
    const auth = /^\/_pages\/3ds\/([^/]+)(\/(complete|fail))?$/.exec(url.pathname);
    const checkout = /^\/_pages\/checkout\/([^/]+)$/.exec(url.pathname);
    if (auth) this.authenticationPage(method, url, auth[1] ?? "", auth[3], html, redirect);
    else if (checkout) this.checkoutPage(method, body, checkout[1] ?? "", html, redirect);
    else html(404, "<p>Not found.</p>");
  }

  /** The bank's 3-D Secure page: Complete or Fail, then back to the return_url. */
  private authenticationPage(
    method: string,
    url: URL,
    intentId: string,
    button: string | undefined,
    html: (status: number, content: string) => void,
    redirect: (location: string) => void,
  ): void {
    const intent = this.intents.get(intentId);
    if (!intent) {
      html(404, "<p>No such payment.</p>");
      return;
    }
    const returnUrl = intent.next_action?.redirect_to_url?.return_url ?? url.searchParams.get("return_url") ?? "";
    if (method === "POST" && button) {
      const succeeded = button === "complete";
      if (intent.status === "requires_action") this.finishAuthentication(intent.id, succeeded);
      const back = new URL(returnUrl);
      back.searchParams.set("payment_intent", intent.id);
      back.searchParams.set("redirect_status", succeeded ? "succeeded" : "failed");
      redirect(back.toString());
      return;
    }
    html(
      200,
      `<h1>3-D Secure test page</h1><p>Payment ${intent.id}: ${(intent.amount / 100).toFixed(2)} ${intent.currency.toUpperCase()}.</p>
<form method="post" action="/_pages/3ds/${intent.id}/complete"><button type="submit">Complete</button></form>
<form method="post" action="/_pages/3ds/${intent.id}/fail" style="margin-top:1rem"><button type="submit">Fail</button></form>`,
    );
  }

  /** Checkout in setup mode: pick a test card, save it to the customer, back to success_url. */
  private checkoutPage(
    method: string,
    body: string,
    sessionId: string,
    html: (status: number, content: string) => void,
    redirect: (location: string) => void,
  ): void {
    const session = this.sessions.get(sessionId);
    if (!session) {
      html(404, "<p>No such Checkout session.</p>");
      return;
    }
    if (method === "POST") {
      const token = new URLSearchParams(body).get("card") ?? "";
      if (!CHECKOUT_CARDS.some((card) => card.token === token)) {
        html(400, "<p>Choose a test card.</p>");
        return;
      }
      this.completeSession(session.id, token);
      redirect((session.success_url ?? "").replace("{CHECKOUT_SESSION_ID}", session.id));
      return;
    }
    const options = CHECKOUT_CARDS.map((card) => `<option value="${card.token}">${card.label}</option>`).join("");
    html(
      200,
      `<h1>Save a card (test server)</h1><form method="post"><label>Card <select name="card">${options}</select></label>
<p><button type="submit">Save card</button></p></form>${session.cancel_url ? `<p><a href="${session.cancel_url}">Cancel</a></p>` : ""}`,
    );
  }

  // ---- events ---------------------------------------------------------------------------------

  private event(id: string): Stripe.Event {
    const event = this.eventList.find((candidate) => candidate.id === id);
    if (!event) throw missing("event", id);
    return event;
  }

  private emit(type: string, object: { id: string }): void {
    const event = {
      id: stripeId("evt"),
      object: "event",
      api_version: "2026-10-28.endive",
      created: this.seconds(),
      data: { object: structuredClone(object) },
      livemode: false,
      pending_webhooks: this.webhookUrl ? 1 : 0,
      request: { id: null, idempotency_key: null },
      type,
    } as unknown as Stripe.Event;
    this.eventList.push(event);
    if (!this.webhookUrl) return;
    if (this.deliveriesHeld) {
      this.heldDeliveries.push(event);
      return;
    }
    const copies = this.duplicateNext ? 2 : 1;
    this.duplicateNext = false;
    for (let i = 0; i < copies; i += 1) this.track(this.deliver(event));
  }

  private track(delivery: Promise<unknown>): void {
    this.inflight.add(delivery);
    delivery.finally(() => this.inflight.delete(delivery)).catch(() => {});
  }

  /** POSTs the event signed as Stripe signs it: `t=<seconds>,v1=<HMAC-SHA256 of "t.payload">`. */
  private async deliver(event: Stripe.Event): Promise<number> {
    if (!this.webhookUrl) return 0;
    const payload = JSON.stringify(event);
    const timestamp = this.seconds();
    const signature = createHmac("sha256", this.webhookSecret).update(`${timestamp}.${payload}`).digest("hex");
    let status: number;
    let answer = "";
    try {
      const response = await fetch(this.webhookUrl, {
        method: "POST",
        headers: { "Content-Type": "application/json", "Stripe-Signature": `t=${timestamp},v1=${signature}` },
        body: payload,
        signal: AbortSignal.timeout(20_000),
      });
      status = response.status;
      answer = (await response.text()).slice(0, 1000);
    } catch {
      status = -1;
    }
    this.deliveryLog.push({ eventId: event.id, type: event.type, status, answer });
    return status;
  }

  // ---- lists and the test API -----------------------------------------------------------------

  /** Stripe's list envelope: newest first, `limit` (default 10, at most 100), `starting_after`. */
  private page_<T extends { id: string }>(items: T[], ctx: Ctx, url: string) {
    const limit = Math.min(Math.max(int(ctx.query, "limit") ?? 10, 1), 100);
    const after = str(ctx.query, "starting_after");
    const before = str(ctx.query, "ending_before");
    let start = 0;
    let end = items.length;
    if (after) start = items.findIndex((item) => item.id === after) + 1;
    if (before) end = Math.max(items.findIndex((item) => item.id === before), 0);
    const window = before ? items.slice(Math.max(end - limit, 0), end) : items.slice(start, start + limit);
    const hasMore = before ? end - limit > 0 : start + limit < items.length;
    return { object: "list", url, has_more: hasMore, data: window };
  }

  private async testApi(method: string, path: string, body: Record<string, unknown>): Promise<Answer> {
    const c = this.control;
    const id = String(body.id ?? "");
    switch (`${method} ${path}`) {
      case "POST /_test/faults":
        c.fault(body as unknown as FaultSpec);
        return ok({ queued: true });
      case "DELETE /_test/faults":
        c.clearFaults();
        return ok({ cleared: true });
      case "POST /_test/release":
        c.releaseHeld();
        return ok({ released: true });
      case "POST /_test/clock":
        c.advanceClock(Number(body.advance_ms ?? 0));
        return ok({ now: c.now() });
      case "GET /_test/requests":
        return ok({ data: c.requests() });
      case "POST /_test/authenticate":
        return ok(c.completeAuthentication(id, body.succeed !== false));
      case "POST /_test/settle":
        return ok(c.settleProcessing(id, body.succeed !== false));
      case "POST /_test/deliveries/hold":
        c.holdDeliveries();
        return ok({ held: true });
      case "POST /_test/deliveries/release":
        await c.releaseDeliveries(body.order === "reverse" ? "reverse" : "sent");
        return ok({ released: true });
      case "POST /_test/deliveries/duplicate":
        c.duplicateNextDelivery();
        return ok({ duplicate: true });
      case "POST /_test/redeliver":
        return ok({ status: await c.redeliver(id) });
      case "GET /_test/deliveries":
        return ok({ data: c.deliveries() });
      case "POST /_test/reset":
        c.reset();
        return ok({ reset: true });
      default:
        return { status: 404, body: { error: { message: `No test endpoint ${method} ${path}` } } };
    }
  }
}

function ok(body: unknown): Answer {
  return { status: 200, body };
}

/** The `expand[]` paths a request asked for. */
function expands(query: FormObject): Set<string> {
  return new Set(list(query, "expand"));
}

/** Stripe's search syntax, as far as this product uses it: `field:'value'` and `metadata['k']:'v'`, AND-ed. */
function matchesQuery(query: string, metadata: Record<string, string>, fields: Record<string, string | null>): boolean {
  const clauses = query.split(/\s+AND\s+/i).filter(Boolean);
  return clauses.every((clause) => {
    const meta = /^metadata\['([^']+)'\]:'([^']*)'$/.exec(clause.trim());
    if (meta) return metadata[meta[1] ?? ""] === meta[2];
    const field = /^([a-z_]+):'([^']*)'$/.exec(clause.trim());
    if (field) return fields[field[1] ?? ""] === field[2];
    return false;
  });
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

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** A random whsec_ secret for a run that was given none. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(24).toString("base64url")}`;
}
