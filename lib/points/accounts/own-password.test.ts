import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SignInRefusedError, signInWithPassword } from "@/lib/auth/sign-in";
import { SIGN_IN_MAX_FAILURES } from "@/lib/auth/throttle";
import { authenticateUser, loadSessionUser, type SessionUser } from "@/lib/auth/users";
import { signInFailures, users } from "@/lib/db/schema";
import { randomString } from "@/lib/ids";
import { runAsUser } from "@/lib/observability/context";
import { backends, createTestContext, expectThrown, type TestContext } from "@/lib/testing/harness";
import { listAudit } from "../audit";
import { PointsError } from "../errors";
import { addMember, resetMemberPassword } from "./members";
import { createOrganization } from "./organizations";
import { changeOwnPassword } from "./own-password";

/*
 * A signed-in person (admin or member) changes their own password, knowing the current one: every
 * other session of theirs ends, the one that asked is handed the new session version, and a wrong
 * current password counts against the sign-in throttle.
 */
describe.each(backends())("changing your own password (%s)", (backend) => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestContext(backend);
  });
  afterAll(async () => ctx?.close());

  const NEW_PASSWORD = "correct horse battery staple";

  async function team() {
    const created = await createOrganization(ctx, { name: `Own Password ${randomString(4)}` });
    const member = await addMember(ctx, created.organization.id, {
      email: `member-${randomString(6).toLowerCase()}@own-password.example`,
      role: "member",
    });
    return { organizationId: created.organization.id, admin: created.admin, member };
  }

  async function signIn(email: string, password: string): Promise<SessionUser> {
    const user = await authenticateUser(ctx.db, email, password);
    if (!user) throw new Error(`${email} could not sign in`);
    return user;
  }

  const change = (user: SessionUser, currentPassword: string, newPassword = NEW_PASSWORD, confirm = newPassword) =>
    runAsUser(user, `req_${randomString(6)}`, () =>
      changeOwnPassword(ctx, { user, currentPassword, newPassword, confirmPassword: confirm, address: "198.51.100.7" }),
    );

  const passwordChanges = async (organizationId: string) =>
    (await listAudit(ctx.db, { organizationId, action: "member.password_changed" })).map((entry) => ({
      actor: [entry.actorType, entry.actorId],
      target: entry.target,
      before: entry.before,
      after: entry.after,
    }));

  it("a member changes theirs: the new one signs in, the old does not, and every other session ends but this one", async () => {
    const t = await team();
    const here = await signIn(t.member.email, t.member.password);
    const elsewhere = await signIn(t.member.email, t.member.password);
    const adminSession = await signIn(t.admin.email, t.admin.password);

    const changed = await change(here, t.member.password);
    if (!changed.ok) throw new Error(changed.message);
    expect(changed.sessionVersion).toBe(here.sessionVersion + 1);
    // The session that asked, re-signed with the new version, is a session; the one elsewhere is not.
    expect(
      await loadSessionUser(ctx.db, { userId: here.userId, sessionVersion: changed.sessionVersion }),
    ).toMatchObject({
      email: t.member.email,
      role: "member",
    });
    expect(await loadSessionUser(ctx.db, elsewhere)).toBeNull();
    expect(await loadSessionUser(ctx.db, here)).toBeNull();
    // Nobody else's session is touched.
    expect(await loadSessionUser(ctx.db, adminSession)).not.toBeNull();

    expect(await authenticateUser(ctx.db, t.member.email, t.member.password)).toBeNull();
    expect(await authenticateUser(ctx.db, t.member.email, NEW_PASSWORD)).toMatchObject({ userId: t.member.userId });
    expect(await passwordChanges(t.organizationId)).toEqual([
      { actor: ["user", t.member.userId], target: t.member.userId, before: null, after: { email: t.member.email } },
    ]);
  });

  it("a wrong current password is refused, changes nothing, and counts as a failed sign-in until the pause", async () => {
    const t = await team();
    const admin = await signIn(t.admin.email, t.admin.password);
    const [before] = await ctx.db.select().from(users).where(eq(users.id, admin.userId));

    const wrong = await change(admin, `${t.admin.password}x`);
    expect(wrong).toEqual({
      ok: false,
      reason: "wrong_password",
      message: "That is not your current password; nothing was changed.",
    });
    const [after] = await ctx.db.select().from(users).where(eq(users.id, admin.userId));
    expect(after).toEqual(before);
    expect(await loadSessionUser(ctx.db, admin)).not.toBeNull();
    expect(
      (
        await ctx.db
          .select()
          .from(signInFailures)
          .where(eq(signInFailures.key, `email:${t.admin.email}`))
      ).length,
    ).toBe(1);

    for (let i = 1; i < SIGN_IN_MAX_FAILURES; i += 1) expect((await change(admin, "guess-number-x")).ok).toBe(false);
    // Paused, even for the right password, here and on the sign-in page alike.
    expect(await change(admin, t.admin.password)).toMatchObject({
      ok: false,
      reason: "throttled",
      message: "Too many wrong passwords; try again in 15 minutes.",
    });
    await expectThrown(SignInRefusedError, () =>
      signInWithPassword(ctx.db, ctx.clock, { email: t.admin.email, password: t.admin.password, address: null }),
    );
    expect(await passwordChanges(t.organizationId)).toEqual([]);
    expect(await authenticateUser(ctx.db, t.admin.email, t.admin.password)).not.toBeNull();
  });

  it.each([
    [
      "a new password under 12 characters",
      "",
      "short",
      "short",
      { newPassword: "Use at least 12 characters (this has 5)." },
    ],
    ["the current password again", "", "", "", { newPassword: "Choose a password other than your current one." }],
    [
      "a confirmation that differs",
      "",
      NEW_PASSWORD,
      `${NEW_PASSWORD}!`,
      { confirmPassword: "This does not match the new password." },
    ],
    ["no current password", "none", NEW_PASSWORD, NEW_PASSWORD, { currentPassword: "Enter your current password." }],
  ])(
    "refuses %s on its field, before any password is checked or counted",
    async (_label, current, next, confirm, fields) => {
      const t = await team();
      const admin = await signIn(t.admin.email, t.admin.password);
      const currentPassword = current === "none" ? "" : t.admin.password;
      const refused = await expectThrown(PointsError, () =>
        change(admin, currentPassword, next || t.admin.password, confirm || t.admin.password),
      );
      expect(refused.code).toBe("invalid_request");
      expect(refused.details.fields).toEqual(fields);
      expect(await loadSessionUser(ctx.db, admin)).not.toBeNull();
      expect(
        await ctx.db
          .select()
          .from(signInFailures)
          .where(eq(signInFailures.key, `email:${t.admin.email}`)),
      ).toEqual([]);
    },
  );

  it("a session a reset has already ended changes nothing", async () => {
    const t = await team();
    const member = await signIn(t.member.email, t.member.password);
    const reset = await resetMemberPassword(ctx.db, t.organizationId, t.member.userId);
    if (!reset.ok) throw new Error(reset.message);
    expect(await change(member, reset.password)).toMatchObject({ ok: false, reason: "session_ended" });
    expect(await authenticateUser(ctx.db, t.member.email, reset.password)).not.toBeNull();
    expect(await passwordChanges(t.organizationId)).toEqual([]);
  });
});
