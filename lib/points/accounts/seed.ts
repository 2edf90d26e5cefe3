import fs from "node:fs";
import path from "node:path";
import { eq, sql } from "drizzle-orm";
import { verifyPassword } from "@/lib/auth/password";
import type { Db } from "@/lib/db/client";
import { organizations, users } from "@/lib/db/schema";
import type { Services } from "../services";
import { createOrganization } from "./organizations";

export interface DemoInfo {
  organization_id: string;
  api_key: string;
  admin: { email: string; password: string };
  payment_methods: { id: string; label: string; kind: string | null; is_default: boolean }[];
}

const DEMO_CARDS = [
  "visa",
  "mastercard",
  "declined",
  "insufficient_funds",
  "authentication_required",
  "processing",
  "expired",
];

/** Where the demo's key and admin password are kept: beside the embedded database (in `dataDir`). */
export function demoInfoFile(dataDir: string): string {
  return path.join(dataDir, "demo.json");
}

/**
 * On the embedded default, the first start creates a demo organisation (API purchases enabled,
 * USD, every test card, the Visa as default). Its key and admin password are kept in the data
 * directory, beside the database they open, so every start can print them.
 */
export async function seedDemo(services: Services, dataDir: string): Promise<DemoInfo | null> {
  const file = demoInfoFile(dataDir);
  const [row] = await services.db.select({ count: sql<number>`count(*)::int` }).from(organizations);
  if ((row?.count ?? 0) > 0) {
    return fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, "utf8")) as DemoInfo) : null;
  }
  // Only the test cards this provider's test mode can attach (with Stripe, docs/contract.md §6).
  const cards = DEMO_CARDS.filter((kind) => services.provider.testMode?.cardKinds().includes(kind));
  const created = await createOrganization(services, {
    name: "Demo Organisation",
    settings: { currency: "USD", apiPurchasesEnabled: true },
    cards,
    defaultCardIndex: cards.length ? 0 : undefined,
    adminEmail: "admin@demo.example",
    keyName: "Demo key",
  });
  const info: DemoInfo = {
    organization_id: created.organization.id,
    api_key: created.apiKey.apiKey,
    admin: { email: created.admin.email, password: created.admin.password },
    payment_methods: created.paymentMethods.map((method) => ({
      id: method.id,
      label: method.label,
      kind: method.kind,
      is_default: method.isDefault,
    })),
  };
  fs.mkdirSync(dataDir, { recursive: true });
  fs.writeFileSync(file, `${JSON.stringify(info, null, 2)}\n`, { mode: 0o600 });
  return info;
}

/** The command that gives the demo admin a new password, run with the server stopped. */
export function demoResetCommand(demo: DemoInfo): string {
  return `npm run points -- user reset-password --email ${demo.admin.email}`;
}

const demoPasswordChecks = new Map<string, boolean>();

/**
 * Whether the demo admin still signs in with the password demo.json keeps: after a change in Your
 * account, or a reset, it does not, and nothing may offer it. Each stored hash is checked once against it.
 */
export async function demoPasswordWorks(db: Db, demo: DemoInfo): Promise<boolean> {
  const [user] = await db
    .select({ passwordHash: users.passwordHash })
    .from(users)
    .where(eq(users.email, demo.admin.email));
  if (!user) return false;
  const key = `${user.passwordHash}\n${demo.admin.password}`;
  let works = demoPasswordChecks.get(key);
  if (works === undefined) {
    works = await verifyPassword(demo.admin.password, user.passwordHash);
    demoPasswordChecks.set(key, works);
  }
  return works;
}
