import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { signInFailures, users } from "@/lib/db/schema";
import { randomString } from "@/lib/ids";
import { addUser } from "@/lib/points/accounts/members";
import { createOrganization } from "@/lib/points/accounts/organizations";
import { backends, createTestContext, expectThrown, type TestContext } from "@/lib/testing/harness";
import { hashPassword, PASSWORD_COST, verifyPassword } from "./password";
import { SignInRefusedError, signInWithPassword } from "./sign-in";
import { SIGN_IN_MAX_FAILURES, SIGN_IN_MAX_FAILURES_PER_ADDRESS, SIGN_IN_WINDOW_MS } from "./throttle";

describe.each(backends())("sign-in with a password (%s)", (backend) => {
  let ctx: TestContext;
  let organizationId: string;
  beforeAll(async () => {
    ctx = await createTestContext(backend);
    organizationId = (await createOrganization(ctx, { name: "Sign-in Co" })).organization.id;
  });
  afterAll(async () => ctx?.close());

  async function newUser() {
    return addUser(ctx, organizationId, { email: `user-${randomString(6).toLowerCase()}@example.com`, role: "member" });
  }
  const attempt = (email: string, password: string, address: string | null = null) =>
    signInWithPassword(ctx.db, ctx.clock, { email, password, address });

  it("pauses an email after 10 failures, even for the right password, and says for how long", async () => {
    const user = await newUser();
    for (let i = 0; i < SIGN_IN_MAX_FAILURES; i += 1) expect(await attempt(user.email, "wrong")).toBeNull();
    const refused = await expectThrown(SignInRefusedError, () => attempt(user.email.toUpperCase(), user.password));
    expect(refused.message).toBe("Too many failed sign-ins; try again in 15 minutes.");

    ctx.clock.advance(SIGN_IN_WINDOW_MS - 60_000);
    expect((await expectThrown(SignInRefusedError, () => attempt(user.email, user.password))).message).toMatch(
      /try again in 1 minute\./,
    );
    ctx.clock.advance(61_000);
    expect(await attempt(user.email, user.password)).toMatchObject({ email: user.email });
    // A success clears the count: the next mistake is the first of ten again.
    expect(await attempt(user.email, "wrong")).toBeNull();
    expect(await attempt(user.email, user.password)).not.toBeNull();
  });

  it("counts failures per client address too, across emails", async () => {
    const victim = await newUser();
    for (let i = 0; i < SIGN_IN_MAX_FAILURES_PER_ADDRESS; i += 1) {
      expect(await attempt(`nobody-${i}@example.com`, "guess", "203.0.113.9")).toBeNull();
    }
    await expectThrown(SignInRefusedError, () => attempt(victim.email, victim.password, "203.0.113.9"));
    // The same person from another address is not held back by that one.
    expect(await attempt(victim.email, victim.password, "198.51.100.7")).not.toBeNull();
  });

  it("refuses with 'unavailable', never lets a guess through, when the count cannot be read", async () => {
    const user = await newUser();
    const broken = {
      ...ctx.db,
      select: () => {
        throw new Error("connection lost");
      },
    } as unknown as typeof ctx.db;
    const quiet = vi.spyOn(console, "error").mockImplementation(() => {});
    try {
      const refused = await expectThrown(SignInRefusedError, () =>
        signInWithPassword(broken, ctx.clock, { email: user.email, password: user.password, address: null }),
      );
      expect(refused.message).toMatch(/unavailable right now/);
    } finally {
      quiet.mockRestore();
    }
  });

  it("upgrades a hash made at an older cost on the next successful sign-in", async () => {
    const user = await newUser();
    const old = await hashPassword(user.password, { N: 2 ** 14, r: 8, p: 1 });
    await ctx.db.update(users).set({ passwordHash: old }).where(eq(users.email, user.email));
    const previous = process.env.POINTS_PRODUCTION_PASSWORD_COST;
    process.env.POINTS_PRODUCTION_PASSWORD_COST = "1";
    try {
      expect(await attempt(user.email, user.password)).not.toBeNull();
    } finally {
      if (previous === undefined) delete process.env.POINTS_PRODUCTION_PASSWORD_COST;
      else process.env.POINTS_PRODUCTION_PASSWORD_COST = previous;
    }
    const [row] = await ctx.db.select().from(users).where(eq(users.email, user.email));
    expect(row?.passwordHash.split("$").slice(0, 4)).toEqual(["scrypt", String(PASSWORD_COST.N), "8", "1"]);
    expect(await verifyPassword(user.password, row?.passwordHash ?? "")).toBe(true);
    expect(
      await ctx.db
        .select()
        .from(signInFailures)
        .where(eq(signInFailures.key, `email:${user.email}`)),
    ).toEqual([]);
  });
});
