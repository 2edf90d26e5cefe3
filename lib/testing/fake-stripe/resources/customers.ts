import type Stripe from "stripe";
import { type Answer, type Ctx, invalid, ok } from "../answers";
import { metadataOf, obj, str } from "../form";
import { matchesQuery, searchResult } from "../lists";
import { customerObject, stripeId } from "../objects";
import type { Store } from "../store";
import { attachTo, resolveMethod } from "./payment-methods";

// POST /v1/customers
export function createCustomer(store: Store, { form }: Ctx): Answer<Stripe.Customer> {
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
  return ok(customer);
}

// GET /v1/customers/:id: a deleted customer is still retrieved, as a stub saying so.
export function retrieveCustomer(store: Store, { params: [id = ""] }: Ctx): Answer<Stripe.Customer | Stripe.DeletedCustomer> {
  if (store.deletedCustomers.has(id)) return ok({ id, object: "customer", deleted: true });
  return ok(store.customer(id));
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
  const name = form.name;
  if (typeof name === "string") customer.name = name || null;
  const email = form.email;
  if (typeof email === "string") customer.email = email || null;
  customer.metadata = metadataOf(form, customer.metadata);
  const settings = obj(form, "invoice_settings");
  if (settings && typeof settings.default_payment_method === "string") {
    if (settings.default_payment_method === "") customer.invoice_settings.default_payment_method = null;
    else setDefault(store, customer, settings.default_payment_method);
  }
  store.events.emit("customer.updated", customer);
  return ok(customer);
}

// GET /v1/customers/search
export function searchCustomers(store: Store, { query }: Ctx): Answer<Stripe.ApiSearchResult<Stripe.Customer>> {
  const text = str(query, "query") ?? "";
  const matches = [...store.customers.values()].filter((customer) => matchesQuery(text, customer.metadata, { email: customer.email }));
  return ok(searchResult(matches, "/v1/customers/search"));
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

