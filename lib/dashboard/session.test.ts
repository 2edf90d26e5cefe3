import { afterEach, describe, expect, it, vi } from "vitest";

/*
 * getSessionUser is shared by a page render's layout and page (React's cache, which keeps values
 * only inside a server component render). Everywhere else (actions, route handlers, these tests)
 * each call checks the session and the database again: a session that ended between two calls
 * is not let through by the first one's answer.
 */
const app = vi.hoisted(() => ({
  session: { userId: "usr_1", sessionVersion: 0 } as object | null,
  storedVersion: 0,
  sessionReads: 0,
  userReads: 0,
}));
vi.mock("next-auth", () => ({
  getServerSession: async () => {
    app.sessionReads++;
    return app.session;
  },
}));
vi.mock("@/lib/server/runtime", () => ({ getRuntime: async () => ({ db: {} }) }));
vi.mock("./auth-options", () => ({ authOptions: {} }));
vi.mock("@/lib/auth/users", async (importOriginal) => ({
  ...(await importOriginal<typeof import("@/lib/auth/users")>()),
  loadSessionUser: async (_db: unknown, claims: { userId: string; sessionVersion: number }) => {
    app.userReads++;
    return claims.sessionVersion === app.storedVersion
      ? {
          userId: claims.userId,
          organizationId: "org_1",
          organizationName: "Org",
          email: "a@example.com",
          role: "admin",
          sessionVersion: claims.sessionVersion,
        }
      : null;
  },
}));

const { getSessionUser, requireAdmin } = await import("./session");

afterEach(() => {
  app.session = { userId: "usr_1", sessionVersion: 0 };
  app.storedVersion = 0;
  app.sessionReads = 0;
  app.userReads = 0;
});

describe("getSessionUser outside a page render", () => {
  it("checks the session and the stored user on every call", async () => {
    expect((await getSessionUser())?.userId).toBe("usr_1");
    expect((await getSessionUser())?.userId).toBe("usr_1");
    expect(app.sessionReads).toBe(2);
    expect(app.userReads).toBe(2);
  });

  it("lets no call through once the session has ended, whatever an earlier call answered", async () => {
    expect(await getSessionUser()).not.toBeNull();
    app.storedVersion = 1; // a password reset or a role change
    expect(await getSessionUser()).toBeNull();
    await expect(requireAdmin()).rejects.toThrow("Your session has ended; sign in again.");
    app.session = null;
    expect(await getSessionUser()).toBeNull();
  });
});
