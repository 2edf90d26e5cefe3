import type Stripe from "stripe";
import { type Answer, type Ctx, invalid, ok, required } from "../answers";
import { bool, int, list, metadataOf, obj, str } from "../form";
import { expands, listPage } from "../lists";
import { priceObject, productObject, stripeId, type WireCurrencyOption, type WirePrice } from "../objects";
import type { Store, StoredPrice } from "../store";

// POST /v1/products
export function createProduct(store: Store, { form }: Ctx): Answer<Stripe.Product> {
  const name = required(form, "name");
  const product = productObject({
    id: str(form, "id") ?? stripeId("prod"),
    created: store.clock.seconds(),
    name,
    metadata: metadataOf(form),
  });
  if (store.products.has(product.id)) throw invalid(`Product already exists.`, { code: "resource_already_exists" });
  store.products.set(product.id, product);
  return ok(product);
}

// GET /v1/products/:id
export function retrieveProduct(store: Store, { params: [id = ""] }: Ctx): Answer<Stripe.Product> {
  return ok(store.product(id));
}

// POST /v1/prices
export function createPrice(store: Store, { form }: Ctx): Answer<WirePrice> {
  const productId = required(form, "product");
  const currency = required(form, "currency");
  const amount = int(form, "unit_amount");
  if (amount === undefined || amount < 0) throw invalid("Invalid integer: unit_amount.", { param: "unit_amount" });
  store.product(productId);
  const lookupKey = str(form, "lookup_key") ?? null;
  if (lookupKey) {
    const holder = [...store.prices.values()].find((entry) => entry.price.lookup_key === lookupKey);
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
    if (unit === undefined)
      throw invalid(`Invalid currency_options[${option}].`, { param: `currency_options[${option}]` });
    options[option] = currencyOption(unit);
  }
  const price = priceObject({
    id: stripeId("price"),
    created: store.clock.seconds(),
    product: productId,
    currency,
    unitAmount: amount,
    lookupKey,
    metadata: metadataOf(form),
    nickname: str(form, "nickname") ?? null,
  });
  options[currency] = currencyOption(amount);
  store.prices.set(price.id, { price, options });
  return ok(price);
}

// GET /v1/prices/:id
export function retrievePrice(store: Store, { params: [id = ""], query }: Ctx): Answer<WirePrice> {
  return ok(wirePrice(store.price(id), expands(query).has("currency_options")));
}

// POST /v1/prices/:id
export function updatePrice(store: Store, { params: [id = ""], form }: Ctx): Answer<WirePrice> {
  const entry = store.price(id);
  const active = bool(form, "active");
  if (active !== undefined) entry.price.active = active;
  entry.price.metadata = metadataOf(form, entry.price.metadata);
  const lookupKey = form.lookup_key;
  if (typeof lookupKey === "string") {
    const holder = [...store.prices.values()].find((other) => other !== entry && other.price.lookup_key === lookupKey);
    if (holder && lookupKey) {
      if (!bool(form, "transfer_lookup_key"))
        throw invalid("A price already uses that lookup key.", { param: "lookup_key" });
      holder.price.lookup_key = null;
    }
    entry.price.lookup_key = lookupKey || null;
  }
  return ok(entry.price);
}

// GET /v1/prices
export function listPrices(store: Store, ctx: Ctx): Answer<Stripe.ApiList<WirePrice>> {
  const keys = list(ctx.query, "lookup_keys");
  const active = bool(ctx.query, "active");
  const product = str(ctx.query, "product");
  const withOptions = expands(ctx.query).has("data.currency_options");
  const prices = [...store.prices.values()]
    .filter(
      ({ price }) =>
        (keys.length === 0 || (price.lookup_key !== null && keys.includes(price.lookup_key))) &&
        (active === undefined || price.active === active) &&
        (!product || price.product === product),
    )
    .reverse()
    .map((entry) => wirePrice(entry, withOptions));
  return ok(listPage(prices, ctx, "/v1/prices"));
}

/** currency_options is included only when expanded, as Stripe does. */
function wirePrice(entry: StoredPrice, withOptions: boolean): WirePrice {
  return withOptions ? { ...entry.price, currency_options: entry.options } : entry.price;
}

function currencyOption(unitAmount: number): WireCurrencyOption {
  return {
    custom_unit_amount: null,
    tax_behavior: "unspecified",
    unit_amount: unitAmount,
    unit_amount_decimal: String(unitAmount),
  };
}
