import { eq } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import type { Database } from "@/lib/db/client";
import { users } from "@/lib/db/schema";
import { resetMemberPassword } from "@/lib/points/accounts/members";
import { createOrganization } from "@/lib/points/accounts/organizations";
import type { DemoInfo } from "@/lib/points/accounts/seed";
import { createTestContext, type TestContext } from "@/lib/testing/harness";
import { demoSignInHint } from "./demo-hint";

/* The sign-in page's hint of `npm run dev`: where the demo admin's password is, never the password. */
let demo: DemoInfo;
let ctx: TestContext;
const embedded = { kind: "pglite", location: "/work/app/.data/pglite" } as Database;

describe("demoSignInHint", () => {
  beforeAll(async () => {
    ctx = await createTestContext("pglite");
    const created = await createOrganization(ctx, { name: "Demo Organisation", adminEmail: "admin@demo.example" });
    demo = {
      organization_id: created.organization.id,
      api_key: created.apiKey.apiKey,
      admin: { email: created.admin.email, password: created.admin.password },
      payment_methods: [],
    };
  });
  afterAll(async () => ctx?.close());
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it("under next dev with the demo seeded: the admin's email and the file beside the database", async () => {
    vi.stubEnv("NODE_ENV", "development");
    const hint = await demoSignInHint(async () => ({ demo, database: embedded, db: ctx.db }), "/work/app");
    expect(hint).toEqual({ email: "admin@demo.example", file: ".data/demo.json" });
    expect(JSON.stringify(hint)).not.toContain(demo.admin.password);
    // A database outside the project is named in full.
    const outside = { ...embedded, location: "/tmp/x/pglite" };
    expect((await demoSignInHint(async () => ({ demo, database: outside, db: ctx.db }), "/work/app"))?.file).toBe(
      "/tmp/x/demo.json",
    );
  });

  it("says nothing in production or in tests, where it does not even ask for the runtime", async () => {
    const runtime = vi.fn(async () => ({ demo, database: embedded, db: ctx.db }));
    for (const mode of ["production", "test"]) {
      vi.stubEnv("NODE_ENV", mode);
      expect(await demoSignInHint(runtime, "/work/app")).toBeNull();
    }
    expect(runtime).not.toHaveBeenCalled();
  });

  it("says nothing without a demo, on Postgres, or when the runtime cannot start", async () => {
    vi.stubEnv("NODE_ENV", "development");
    expect(await demoSignInHint(async () => ({ demo: null, database: embedded, db: ctx.db }))).toBeNull();
    const postgres = { kind: "postgres", location: "postgres://db/points" } as Database;
    expect(await demoSignInHint(async () => ({ demo, database: postgres, db: ctx.db }))).toBeNull();
    expect(await demoSignInHint(() => Promise.reject(new Error("database unreachable")))).toBeNull();
  });

  it("never offers a password that no longer works: after a reset, the way to a new one instead", async () => {
    vi.stubEnv("NODE_ENV", "development");
    const runtime = async () => ({ demo, database: embedded, db: ctx.db });
    expect((await demoSignInHint(runtime, "/work/app"))?.reset).toBeUndefined();
    const [admin] = await ctx.db.select().from(users).where(eq(users.email, demo.admin.email));
    const reset = await resetMemberPassword(ctx.db, demo.organization_id, admin?.id ?? "");
    expect(reset.ok).toBe(true);
    const hint = await demoSignInHint(runtime, "/work/app");
    expect(hint).toEqual({
      email: "admin@demo.example",
      file: ".data/demo.json",
      reset: "npm run points -- user reset-password --email admin@demo.example",
    });
  });
});
