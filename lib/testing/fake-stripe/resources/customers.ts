import type Stripe from "stripe";
import { type Answer, type Ctx, invalid, ok } from "../answers";
import { type FormObject, list, metadataOf, obj, str } from "../form";
import { listPage, matchesQuery, searchResult } from "../lists";
import { customerObject, type PreviousAttributes, stripeId } from "../objects";
import type { Store } from "../store";
import { attachTo, changedKeys, resolveMethod } from "./payment-methods";

// POST /v1/customers
export function createCustomer(store: Store, { form }: Ctx): Answer<Stripe.Customer> {
  const expand = expansions(form);
  const customer = customerObject({
    id: stripeId("cus"),
    created: store.clock.seconds(),
    name: str(form, "name") ?? null,
    email: str(form, "email") ?? null,
    metadata: metadataOf(form),
  });
  store.customers.set(customer.id, customer);
  const token = str(form, "payment_method");
  if (token) attachTo(store, resolveMethod(store, token), customer.id);
  const defaultId = str(obj(form, "invoice_settings") ?? {}, "default_payment_method");
  if (defaultId) setDefault(store, customer, defaultId);
  store.events.emit("customer.created", customer);
  return ok(wireCustomer(store, customer, expand));
}

// GET /v1/customers/:id: a deleted customer is still retrieved, as a stub saying so.
export function retrieveCustomer(
  store: Store,
  { params: [id = ""], query }: Ctx,
): Answer<Stripe.Customer | Stripe.DeletedCustomer> {
  const expand = expansions(query);
  if (store.deletedCustomers.has(id)) return ok({ id, object: "customer", deleted: true });
  return ok(wireCustomer(store, store.customer(id), expand));
}

// GET /v1/customers: newest first; deleted customers are not listed.
export function listCustomers(store: Store, ctx: Ctx): Answer<Stripe.ApiList<Stripe.Customer>> {
  const expand = expansions(ctx.query, "data.");
  const email = str(ctx.query, "email");
  const customers = [...store.customers.values()]
    .filter((customer) => !email || customer.email === email)
    .reverse()
    .map((customer) => wireCustomer(store, customer, expand));
  return ok(listPage(customers, ctx, "/v1/customers"));
}

// DELETE /v1/customers/:id: its cards are detached, and every later call naming it answers 404.
export function deleteCustomer(store: Store, { params: [id = ""] }: Ctx): Answer<Stripe.DeletedCustomer> {
  const customer = store.customer(id);
  for (const { method } of store.methods.values()) {
    if (method.customer === id) method.customer = null;
  }
  store.customers.delete(id);
  store.deletedCustomers.add(id);
  store.events.emit("customer.deleted", customer);
  return ok({ id, object: "customer", deleted: true });
}

// POST /v1/customers/:id
export function updateCustomer(store: Store, { params: [id = ""], form }: Ctx): Answer<Stripe.Customer> {
  const customer = store.customer(id);
  const expand = expansions(form);
  const previous: PreviousAttributes<Stripe.Customer> = {};
  const name = typeof form.name === "string" ? form.name || null : customer.name;
  if (name !== customer.name) previous.name = customer.name;
  const email = typeof form.email === "string" ? form.email || null : customer.email;
  if (email !== customer.email) previous.email = customer.email;
  const metadata = metadataOf(form, customer.metadata);
  const metadataBefore = changedKeys(customer.metadata, metadata);
  if (metadataBefore) previous.metadata = metadataBefore;
  const defaultBefore = customer.invoice_settings.default_payment_method;
  const settings = obj(form, "invoice_settings");
  if (settings && typeof settings.default_payment_method === "string") {
    if (settings.default_payment_method === "") customer.invoice_settings.default_payment_method = null;
    else setDefault(store, customer, settings.default_payment_method);
  }
  if (customer.invoice_settings.default_payment_method !== defaultBefore) {
    previous.invoice_settings = { default_payment_method: defaultBefore };
  }
  Object.assign(customer, { name, email, metadata });
  // As Stripe, an update that changes nothing makes no event.
  if (Object.keys(previous).length > 0) store.events.emit("customer.updated", customer, previous);
  return ok(wireCustomer(store, customer, expand));
}

// GET /v1/customers/search
export function searchCustomers(store: Store, { query }: Ctx): Answer<Stripe.ApiSearchResult<Stripe.Customer>> {
  const expand = expansions(query, "data.");
  const text = str(query, "query") ?? "";
  const matches = [...store.customers.values()]
    .filter((customer) => matchesQuery(text, customer.metadata, { email: customer.email }))
    .map((customer) => wireCustomer(store, customer, expand));
  return ok(searchResult(matches, "/v1/customers/search"));
}

/** A customer's fields Stripe expands that this server keeps: each null here, or an id it expands. */
const EXPANDABLE = new Set(["invoice_settings.default_payment_method", "default_source", "test_clock"]);
/** A customer's fields Stripe expands (or includes only when expanded) that this server does not keep. */
const NOT_KEPT = new Set(["cash_balance", "invoice_credit_balance", "sources", "subscriptions", "tax", "tax_ids"]);

/**
 * The customer fields a request's `expand[]` names (each after `prefix`: `data.` on a list), or
 * Stripe's 400 for a path it cannot expand; a path Stripe expands but this server does not keep is
 * refused too, rather than answered unexpanded.
 */
function expansions(params: FormObject, prefix: "" | "data." = ""): Set<string> {
  const fields = new Set<string>();
  for (const path of list(params, "expand")) {
    const field = path.startsWith(prefix) ? path.slice(prefix.length) : null;
    if (field !== null && EXPANDABLE.has(field)) {
      fields.add(field);
      continue;
    }
    const head = (field ?? path).split(".")[0] ?? "";
    const deeper = field !== null && [...EXPANDABLE].some((expandable) => field.startsWith(`${expandable}.`));
    if (field !== null && (NOT_KEPT.has(head) || deeper)) {
      throw invalid(`The Stripe-compatible test server does not expand ${path}.`, { param: "expand" });
    }
    throw invalid(`This property cannot be expanded (${head}).`);
  }
  return fields;
}

/**
 * The customer as an answer gives it: `invoice_settings.default_payment_method` the whole
 * PaymentMethod when expanded, as Stripe answers it, else its id. The stored customer (and its
 * events, which Stripe never expands) keeps the id.
 */
function wireCustomer(store: Store, customer: Stripe.Customer, expand: Set<string>): Stripe.Customer {
  const methodId = customer.invoice_settings.default_payment_method;
  if (!expand.has("invoice_settings.default_payment_method") || typeof methodId !== "string") return customer;
  return {
    ...customer,
    invoice_settings: { ...customer.invoice_settings, default_payment_method: store.method(methodId).method },
  };
}

function setDefault(store: Store, customer: Stripe.Customer, methodId: string): void {
  const entry = store.methods.get(methodId);
  if (!entry || entry.method.customer !== customer.id) {
    throw invalid(`No such PaymentMethod: '${methodId}'; it must be attached to customer ${customer.id} first.`, {
      code: "resource_missing",
      param: "invoice_settings[default_payment_method]",
    });
  }
  customer.invoice_settings.default_payment_method = methodId;
}
