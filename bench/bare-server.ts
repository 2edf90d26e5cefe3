/**
 * The baseline the app is measured against: a bare node:http server with postgres.js and nothing
 * else, doing the least work the two endpoints can do on the same tables. It skips everything the
 * app adds on purpose (validation beyond the minimum, the lease, the phases, asking the provider for
 * the cards), so the ratio shows what that machinery costs. What a correct purchase cannot skip it
 * does: the simulated provider's record of the charge, and the `top_up.paid` event in the purchase's
 * transaction (docs/contract.md §8). Started by bench/run.ts in its own process.
 *
 * Env: DATABASE_URL (required), BARE_PORT (default 3201), BARE_POOL (default 10, the app's pool size).
 */
import { createHash, randomBytes } from "node:crypto";
import http from "node:http";
import postgres from "postgres";
import { SIMULATED_PRICES } from "@/lib/billing/prices";
import { isBundle, isCurrency } from "@/lib/catalog";

const databaseUrl = process.env.DATABASE_URL;
if (!databaseUrl) {
  console.error("bare-server: DATABASE_URL is required");
  process.exit(2);
}
const port = Number(process.env.BARE_PORT ?? "3201");
const sql = postgres(databaseUrl, {
  max: Number(process.env.BARE_POOL ?? "10"),
  onnotice: () => {},
  connection: { application_name: process.env.BARE_APPLICATION_NAME ?? "points-bench-bare" },
});

interface KeyRow {
  organization_id: string;
  billing_customer_id: string;
  currency: string | null;
  default_payment_method_id: string | null;
}

interface TopUpRow {
  id: string;
  reference: string;
  points: number;
  currency: string;
  amount: number;
  payment_source_id: string;
  status: string;
  source: string;
  created_at: Date;
  paid_at: Date | null;
}

interface MethodRow {
  id: string;
  brand: string;
  last4: string;
  exp_month: number;
  exp_year: number;
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
  ) {
    super(code);
  }
}

function newId(prefix: string): string {
  return `${prefix}_${randomBytes(10).toString("hex")}`;
}

function send(res: http.ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "Content-Type": "application/json; charset=utf-8",
    "Content-Length": Buffer.byteLength(text),
  });
  res.end(text);
}

async function readBody(req: http.IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  try {
    return JSON.parse(Buffer.concat(chunks).toString("utf8"));
  } catch {
    throw new HttpError(422, "invalid_request");
  }
}

/** The same lookup the app makes: the key by its SHA-256, joined to its organisation. */
async function lookUpKey(req: http.IncomingMessage): Promise<KeyRow> {
  const match = /^bearer[ \t]+(\S+)/i.exec(req.headers.authorization ?? "");
  const key = match?.[1];
  if (!key) throw new HttpError(403, "invalid_api_key");
  const hash = createHash("sha256").update(key).digest("hex");
  const rows = await sql<KeyRow[]>`
    select k.organization_id, o.billing_customer_id, o.currency, c.default_payment_method_id
    from api_keys k
    join organizations o on o.id = k.organization_id
    left join sim_customers c on c.id = o.billing_customer_id
    where k.hash = ${hash} and k.revoked_at is null
      and o.api_available and o.api_purchases_enabled`;
  const row = rows[0];
  if (!row) throw new HttpError(403, "invalid_api_key");
  return row;
}

async function purchase(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  const org = await lookUpKey(req);
  const body = await readBody(req);
  if (typeof body !== "object" || body === null) throw new HttpError(422, "invalid_request");
  const fields = body as Record<string, unknown>;
  const points = fields.points;
  const reference = fields.reference;
  const currency = fields.currency ?? org.currency;
  const paymentSourceId =
    typeof fields.payment_source_id === "string" ? fields.payment_source_id : org.default_payment_method_id;
  if (typeof reference !== "string" || !isBundle(points) || !isCurrency(currency) || !paymentSourceId) {
    throw new HttpError(422, "invalid_request");
  }
  const amount = SIMULATED_PRICES[currency][points];
  if (amount === undefined) throw new HttpError(422, "currency_not_available");
  const pointsBought: number = points;
  const id = newId("tu");
  const paymentId = newId("pi_sim");
  // The charge, as the simulated provider records it, then one transaction: the top-up (already
  // paid), the balance and the event counter bumped, the ledger entry and the event.
  await sql`
    insert into sim_payments (id, idempotency_key, customer_id, payment_method_id, amount, currency, top_up_id,
      status, created_at, updated_at)
    values (${paymentId}, ${`bare_${id}`}, ${org.billing_customer_id}, ${paymentSourceId}, ${amount}, ${currency},
      ${id}, 'succeeded', now(), now())`;
  const result = await sql.begin(async (tx) => {
    const [topUp] = await tx<TopUpRow[]>`
      insert into top_ups (id, organization_id, reference, points, currency, amount, payment_source_id,
        billing_customer_id, source, status, provider_idempotency_key, provider_payment_id, attempts, paid_at)
      values (${id}, ${org.organization_id}, ${reference}, ${pointsBought}, ${currency}, ${amount}, ${paymentSourceId},
        ${org.billing_customer_id}, 'api', 'paid', ${`bare_${id}`}, ${paymentId}, 1, now())
      returning id, reference, points, currency, amount, payment_source_id, status, source, created_at, paid_at`;
    const [balance] = await tx<{ points_balance: number; event_sequence: number }[]>`
      update organizations set points_balance = points_balance + ${pointsBought}, event_sequence = event_sequence + 1,
        updated_at = now()
      where id = ${org.organization_id} returning points_balance, event_sequence`;
    if (!topUp || !balance) throw new Error("The top-up or the organisation row was not written.");
    await tx`
      insert into points_ledger (id, organization_id, top_up_id, delta, balance_after, reason)
      values (${newId("led")}, ${org.organization_id}, ${id}, ${pointsBought}, ${balance.points_balance}, 'top_up')`;
    await tx`
      insert into events (organization_id, sequence, id, type, data, created_at)
      select ${org.organization_id}, ${balance.event_sequence}, ${newId("evt")}, 'top_up.paid',
        jsonb_build_object('top_up', to_jsonb(t), 'points_balance', ${balance.points_balance}::integer), now()
      from top_ups t where t.id = ${id}`;
    return { topUp, pointsBalance: balance.points_balance };
  });
  const { topUp } = result;
  send(res, 201, {
    status: "success",
    data: {
      top_up: {
        id: topUp.id,
        reference: topUp.reference,
        points: topUp.points,
        currency: topUp.currency,
        amount: topUp.amount,
        payment_source_id: topUp.payment_source_id,
        status: topUp.status,
        failure: null,
        source: topUp.source,
        created_at: topUp.created_at.toISOString(),
        paid_at: topUp.paid_at ? topUp.paid_at.toISOString() : null,
      },
      points_balance: result.pointsBalance,
    },
  });
}

/**
 * The least a correct spend does: in one transaction, the balance taken only if it suffices (the
 * row's lock serialising the organisation's spends) with the event counter bumped, the spend with
 * its unique reference, its ledger row and its event.
 */
async function spend(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  const org = await lookUpKey(req);
  const body = await readBody(req);
  if (typeof body !== "object" || body === null) throw new HttpError(422, "invalid_request");
  const { points, reference } = body as Record<string, unknown>;
  if (typeof reference !== "string" || typeof points !== "number" || !Number.isInteger(points) || points < 1) {
    throw new HttpError(422, "invalid_request");
  }
  const id = newId("sp");
  const result = await sql.begin(async (tx) => {
    const [balance] = await tx<{ points_balance: number; event_sequence: number }[]>`
      update organizations set points_balance = points_balance - ${points}, event_sequence = event_sequence + 1,
        updated_at = now()
      where id = ${org.organization_id} and points_balance >= ${points}
      returning points_balance, event_sequence`;
    if (!balance) throw new HttpError(409, "insufficient_points");
    const [row] = await tx<{ created_at: Date }[]>`
      insert into spends (organization_id, id, reference, points, source, balance_after)
      values (${org.organization_id}, ${id}, ${reference}, ${points}, 'api', ${balance.points_balance})
      returning created_at`;
    await tx`
      insert into points_ledger (id, organization_id, kind, delta, balance_after, cause_id, reason)
      values (${newId("led")}, ${org.organization_id}, 'usage', ${-points}, ${balance.points_balance}, ${id}, 'usage')`;
    const spendJson = { id, reference, points, description: null, created_at: row?.created_at.toISOString() };
    await tx`
      insert into events (organization_id, sequence, id, type, data, created_at)
      values (${org.organization_id}, ${balance.event_sequence}, ${newId("evt")}, 'points.spent',
        ${sql.json({ spend: spendJson, points_balance: balance.points_balance })}, now())`;
    return { spend: spendJson, pointsBalance: balance.points_balance };
  });
  send(res, 201, { status: "success", data: { spend: result.spend, points_balance: result.pointsBalance } });
}

async function listMethods(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  const org = await lookUpKey(req);
  const rows = await sql<MethodRow[]>`
    select id, brand, last4, exp_month, exp_year from sim_payment_methods
    where customer_id = ${org.billing_customer_id} and detached_at is null
    order by created_at, id`;
  send(res, 200, {
    status: "success",
    data: {
      payment_methods: rows.map((row) => ({
        id: row.id,
        label: `${row.brand} •••• ${row.last4}`,
        type: "card",
        brand: row.brand,
        last4: row.last4,
        exp_month: row.exp_month,
        exp_year: row.exp_year,
        is_default: row.id === org.default_payment_method_id,
      })),
    },
  });
}

const server = http.createServer((req, res) => {
  const path = (req.url ?? "").split("?")[0];
  const handler =
    req.method === "POST" && path === "/v3/points/top-ups"
      ? purchase
      : req.method === "POST" && path === "/v3/points/spends"
        ? spend
        : req.method === "GET" && path === "/v3/points/payment-methods"
          ? listMethods
          : null;
  if (!handler) {
    send(res, 404, { status: "error", error: { code: "not_found" } });
    return;
  }
  handler(req, res).catch((error: unknown) => {
    if (error instanceof HttpError) {
      send(res, error.status, { status: "error", error: { code: error.code } });
      return;
    }
    console.error("bare-server:", error);
    send(res, 500, { status: "error", error: { code: "internal_error" } });
  });
});
server.keepAliveTimeout = 65_000;

server.listen(port, "127.0.0.1", () => {
  console.log(`bare-server ready on http://127.0.0.1:${port}`);
});

function shutdown(): void {
  server.close();
  server.closeAllConnections();
  void sql.end({ timeout: 2 }).finally(() => process.exit(0));
}
process.on("SIGTERM", shutdown);
process.on("SIGINT", shutdown);
