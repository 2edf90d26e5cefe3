import fs from "node:fs";
import path from "node:path";
import type Stripe from "stripe";
import type { IdempotencyKeys, StoredKey } from "./idempotency";
import type { Store, StoredMethod, StoredPrice } from "./store";

/*
 * The test server's state on disk, so that `npm run stripe:fake` can stop and start again without
 * the app noticing: the keys it was started with, every object, the events, the idempotency keys
 * that have an answer, and how far tests moved the clock. One JSON file, replaced whole (written
 * beside it, then renamed over it), and only when what it would hold changed.
 */

export const STATE_FILE = "state.json";
const VERSION = 1;

export interface SavedState {
  version: typeof VERSION;
  secretKey: string;
  webhookSecret: string;
  clockOffsetMs: number;
  customers: Stripe.Customer[];
  methods: StoredMethod[];
  products: Stripe.Product[];
  prices: StoredPrice[];
  intents: Stripe.PaymentIntent[];
  sessions: Stripe.Checkout.Session[];
  setupIntents: Stripe.SetupIntent[];
  /** Added with refunds and disputes: a state file written before them has none, which reads as empty. */
  charges: Stripe.Charge[];
  refunds: Stripe.Refund[];
  disputes: Stripe.Dispute[];
  events: Stripe.Event[];
  idempotency: [string, StoredKey][];
}

const LISTS = [
  "customers",
  "methods",
  "products",
  "prices",
  "intents",
  "sessions",
  "setupIntents",
  "events",
  "idempotency",
] as const;
/** Lists a state file from before refunds and disputes does not have: absent reads as empty. */
const LATER_LISTS = ["charges", "refunds", "disputes"] as const;

/** The state kept in `dir`, or null when there is none yet. A file this server cannot read is an error, never an empty start. */
export function readState(dir: string): SavedState | null {
  const file = path.join(dir, STATE_FILE);
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
  const refuse = (why: string) =>
    new Error(`${file} cannot be read (${why}). Move it away to start empty, or start with --in-memory.`);
  let state: Partial<SavedState>;
  try {
    state = JSON.parse(text) as Partial<SavedState>;
  } catch (error) {
    throw refuse(`not JSON: ${(error as Error).message}`);
  }
  if (typeof state !== "object" || state === null || state.version !== VERSION)
    throw refuse(`not a version ${VERSION} state`);
  if (typeof state.secretKey !== "string" || !state.secretKey.startsWith("sk_test_"))
    throw refuse("no sk_test_ secret key");
  if (typeof state.webhookSecret !== "string" || typeof state.clockOffsetMs !== "number")
    throw refuse("no webhook secret or clock");
  for (const list of LISTS) if (!Array.isArray(state[list])) throw refuse(`no ${list} list`);
  for (const list of LATER_LISTS) {
    if (state[list] === undefined) state[list] = [];
    else if (!Array.isArray(state[list])) throw refuse(`no ${list} list`);
  }
  return state as SavedState;
}

/** Fills an empty store and key table from a saved state. */
export function restoreState(state: SavedState, store: Store, keys: IdempotencyKeys): void {
  const byId = <T extends { id: string }>(map: Map<string, T>, values: T[]) => {
    for (const value of values) map.set(value.id, value);
  };
  byId(store.customers, state.customers);
  for (const entry of state.methods) store.methods.set(entry.method.id, entry);
  byId(store.products, state.products);
  for (const entry of state.prices) store.prices.set(entry.price.id, entry);
  byId(store.intents, state.intents);
  byId(store.sessions, state.sessions);
  byId(store.setupIntents, state.setupIntents);
  byId(store.charges, state.charges);
  byId(store.refunds, state.refunds);
  byId(store.disputes, state.disputes);
  store.events.restore(state.events);
  store.clock.advance(state.clockOffsetMs);
  keys.restore(state.idempotency);
}

function snapshot(
  store: Store,
  keys: IdempotencyKeys,
  secrets: { secretKey: string; webhookSecret: string },
): SavedState {
  return {
    version: VERSION,
    ...secrets,
    clockOffsetMs: store.clock.offset(),
    customers: [...store.customers.values()],
    methods: [...store.methods.values()],
    products: [...store.products.values()],
    prices: [...store.prices.values()],
    intents: [...store.intents.values()],
    sessions: [...store.sessions.values()],
    setupIntents: [...store.setupIntents.values()],
    charges: [...store.charges.values()],
    refunds: [...store.refunds.values()],
    disputes: [...store.disputes.values()],
    events: store.events.all(),
    idempotency: keys.answered(),
  };
}

/**
 * Writes the state file after changes. `save()` resolves once what the store holds now is on disk;
 * calls made while a write runs share the one write that follows it.
 */
export class StateFile {
  private last = "";
  private writing: Promise<void> | null = null;
  private next: Promise<void> | null = null;
  private count = 0;

  constructor(
    private readonly dir: string,
    private readonly take: () => SavedState,
  ) {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  }

  static of(
    dir: string,
    store: Store,
    keys: IdempotencyKeys,
    secrets: { secretKey: string; webhookSecret: string },
  ): StateFile {
    return new StateFile(dir, () => snapshot(store, keys, secrets));
  }

  save(): Promise<void> {
    if (this.next) return this.next;
    if (!this.writing) {
      this.writing = this.write().finally(() => {
        this.writing = null;
      });
      return this.writing;
    }
    this.next = this.writing.then(() => {
      this.next = null;
      return this.save();
    });
    return this.next;
  }

  private async write(): Promise<void> {
    const text = JSON.stringify(this.take());
    if (text === this.last) return;
    const temporary = this.temporaryPath();
    await fs.promises.writeFile(temporary, text, { mode: 0o600 });
    await fs.promises.rename(temporary, path.join(this.dir, STATE_FILE));
    this.last = text;
  }

  private temporaryPath(): string {
    this.count += 1;
    return path.join(this.dir, `.${STATE_FILE}.${process.pid}.${this.count}.tmp`);
  }
}
