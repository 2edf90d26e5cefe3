import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addMember, changeMemberRole, removeMember, resetMemberPassword } from "@/lib/points/accounts/members";
import { createOrganization } from "@/lib/points/accounts/organizations";
import { backends, createTestContext, type TestContext } from "@/lib/testing/harness";
import { authenticateUser, loadSessionUser, sessionClaims } from "./users";

/*
 * A session names the user's session version at sign-in; a password reset, a role change or a
 * removal moves that user's version on, and every session signed before it ends.
 */
describe.each(backends())("sessions end when their user's access changes (%s)", (backend) => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestContext(backend);
  });
  afterAll(async () => ctx?.close());

  async function team(name: string) {
    const created = await createOrganization(ctx, { name });
    const slug = name.toLowerCase().replace(/[^a-z]+/g, "-");
    const member = await addMember(ctx, created.organization.id, { email: `member@${slug}.example`, role: "member" });
    return { organizationId: created.organization.id, admin: created.admin, member };
  }

  /** What a sign-in puts in the session token. */
  async function signIn(email: string, password: string) {
    const user = await authenticateUser(ctx.db, email, password);
    if (!user) throw new Error(`${email} could not sign in`);
    return { userId: user.userId, sessionVersion: user.sessionVersion };
  }

  it("a session signed with the current version is the user; a reset ends it, and only the member's", async () => {
    const t = await team("Version Reset");
    const memberSession = await signIn(t.member.email, t.member.password);
    const adminSession = await signIn(t.admin.email, t.admin.password);
    expect(await loadSessionUser(ctx.db, memberSession)).toMatchObject({ email: t.member.email, role: "member" });

    const reset = await resetMemberPassword(ctx.db, t.organizationId, t.member.userId);
    if (!reset.ok) throw new Error(reset.message);
    expect(await loadSessionUser(ctx.db, memberSession)).toBeNull();
    // The admin who reset it keeps their session.
    expect(await loadSessionUser(ctx.db, adminSession)).toMatchObject({ email: t.admin.email });
    // A sign-in with the new password is a session again.
    expect(await loadSessionUser(ctx.db, await signIn(t.member.email, reset.password))).not.toBeNull();
  });

  it("an admin resetting their own password ends their own sessions", async () => {
    const t = await team("Version Self Reset");
    const adminSession = await signIn(t.admin.email, t.admin.password);
    const reset = await resetMemberPassword(ctx.db, t.organizationId, t.admin.userId);
    if (!reset.ok) throw new Error(reset.message);
    expect(await loadSessionUser(ctx.db, adminSession)).toBeNull();
  });

  it("a role change ends that user's sessions; asking for the role they have changes nothing", async () => {
    const t = await team("Version Role");
    const memberSession = await signIn(t.member.email, t.member.password);
    const adminSession = await signIn(t.admin.email, t.admin.password);
    expect(await changeMemberRole(ctx.db, t.organizationId, t.member.userId, "member")).toEqual({ ok: true });
    expect(await loadSessionUser(ctx.db, memberSession)).not.toBeNull();

    expect(await changeMemberRole(ctx.db, t.organizationId, t.member.userId, "admin")).toEqual({ ok: true });
    expect(await loadSessionUser(ctx.db, memberSession)).toBeNull();
    expect(await loadSessionUser(ctx.db, adminSession)).not.toBeNull();
    expect(await loadSessionUser(ctx.db, await signIn(t.member.email, t.member.password))).toMatchObject({
      role: "admin",
    });
  });

  it("a removal ends the removed user's sessions", async () => {
    const t = await team("Version Removal");
    const memberSession = await signIn(t.member.email, t.member.password);
    expect(await removeMember(ctx.db, t.organizationId, t.member.userId, t.admin.userId)).toEqual({ ok: true });
    expect(await loadSessionUser(ctx.db, memberSession)).toBeNull();
  });

  it("a version from another time, or a token without one, is no session", async () => {
    const t = await team("Version Claims");
    const session = await signIn(t.member.email, t.member.password);
    expect(await loadSessionUser(ctx.db, { ...session, sessionVersion: session.sessionVersion + 1 })).toBeNull();
    expect(sessionClaims({ sub: session.userId })).toBeNull();
    expect(sessionClaims({ sub: session.userId, sv: "0" })).toBeNull();
    expect(sessionClaims(null)).toBeNull();
    expect(sessionClaims({ sub: session.userId, sv: session.sessionVersion })).toEqual(session);
  });
});
