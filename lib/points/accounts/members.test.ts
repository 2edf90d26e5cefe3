import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authenticateUser } from "@/lib/auth/users";
import { backends, createTestContext, expectPointsError, type TestContext } from "@/lib/testing/harness";
import { addMember, changeMemberRole, listMembers, removeMember, resetMemberPassword } from "./members";
import { createOrganization } from "./organizations";
import { isEmailAddress } from "./users";

describe.each(backends())("members on %s", (backend) => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestContext(backend);
  });
  afterAll(async () => {
    await ctx?.close();
  });

  const newOrg = (name: string) => createOrganization(ctx, { name });

  const refusal = expectPointsError;

  it("an added member signs in with the password shown once, into the right organisation and role", async () => {
    const created = await newOrg("Members One");
    const added = await addMember(ctx, created.organization.id, { email: "Colleague@Members.example", role: "member" });
    expect(added.email).toBe("colleague@members.example");
    expect(added.password.length).toBeGreaterThanOrEqual(20);

    const user = await authenticateUser(ctx.db, "colleague@members.example", added.password);
    expect(user).toMatchObject({ organizationId: created.organization.id, role: "member" });
    expect(await authenticateUser(ctx.db, "colleague@members.example", "not-the-password")).toBeNull();
  });

  it("lists only this organisation's people, oldest first, without password hashes", async () => {
    const mine = await newOrg("Members Two");
    const theirs = await newOrg("Members Three");
    ctx.clock.advance(1000);
    await addMember(ctx, mine.organization.id, { email: "second-admin@two.example", role: "admin" });
    await addMember(ctx, theirs.organization.id, { email: "stranger@three.example", role: "member" });

    const members = await listMembers(ctx.db, mine.organization.id);
    expect(members.map((member) => [member.email, member.role])).toEqual([
      [mine.admin.email, "admin"],
      ["second-admin@two.example", "admin"],
    ]);
    expect(Object.keys(members[0] ?? {}).sort()).toEqual(["createdAt", "email", "id", "role"]);
  });

  it("refuses a taken email, a malformed email and an unknown role, each on its field", async () => {
    const created = await newOrg("Members Four");
    const id = created.organization.id;
    const taken = await refusal(() => addMember(ctx, id, { email: created.admin.email, role: "member" }));
    expect(taken.details.fields).toEqual({ email: "Someone with this email already has an account." });
    const malformed = await refusal(() => addMember(ctx, id, { email: "not-an-email", role: "member" }));
    expect(malformed.details.fields).toHaveProperty("email");
    const role = await refusal(() => addMember(ctx, id, { email: "owner@four.example", role: "owner" }));
    expect(role.details.fields).toHaveProperty("role");
    expect(await listMembers(ctx.db, id)).toHaveLength(1);
  });

  it("refuses markup and other non-addresses as an email, and keeps ordinary ones", async () => {
    const created = await newOrg("Members Five");
    const script = await refusal(() =>
      addMember(ctx, created.organization.id, { email: "<script>alert(1)</script>@x.com", role: "member" }),
    );
    expect(script.details.fields).toHaveProperty("email");
    for (const bad of ["a@b", "a b@c.example", '"quoted"@x.com', "a@-x.example", "a@x..example", "a@x.example/evil"]) {
      expect(isEmailAddress(bad), bad).toBe(false);
    }
    for (const good of ["colleague@members.example", "first.last+tag@sub.example.co.uk", "o'brien@x.com"]) {
      expect(isEmailAddress(good), good).toBe(true);
    }
    expect(await listMembers(ctx.db, created.organization.id)).toHaveLength(1);
  });

  it("changes a role, but never demotes the last admin", async () => {
    const created = await newOrg("Members Six");
    const id = created.organization.id;
    const colleague = await addMember(ctx, id, { email: "colleague@six.example", role: "member" });
    expect(await changeMemberRole(ctx.db, id, colleague.userId, "admin")).toEqual({ ok: true });
    expect(await changeMemberRole(ctx.db, id, created.admin.userId, "member")).toEqual({ ok: true });
    const refused = await changeMemberRole(ctx.db, id, colleague.userId, "member");
    expect(refused).toMatchObject({ ok: false, reason: "last_admin" });
    // Both were added at the same clock time, so compare without relying on the listing order.
    const roles = Object.fromEntries((await listMembers(ctx.db, id)).map((member) => [member.email, member.role]));
    expect(roles).toEqual({ [created.admin.email]: "member", "colleague@six.example": "admin" });
  });

  it("two admins demoting each other at once leave one admin", async () => {
    const created = await newOrg("Members Seven");
    const id = created.organization.id;
    const other = await addMember(ctx, id, { email: "other@seven.example", role: "admin" });
    const results = await Promise.all([
      changeMemberRole(ctx.db, id, created.admin.userId, "member"),
      changeMemberRole(ctx.db, id, other.userId, "member"),
    ]);
    expect(results.filter((result) => result.ok)).toHaveLength(1);
    expect((await listMembers(ctx.db, id)).filter((member) => member.role === "admin")).toHaveLength(1);
  });

  it("removes a member, who can no longer sign in; never the last admin, never oneself", async () => {
    const created = await newOrg("Members Eight");
    const id = created.organization.id;
    const colleague = await addMember(ctx, id, { email: "leaver@eight.example", role: "member" });
    expect(await removeMember(ctx.db, id, colleague.userId, created.admin.userId)).toEqual({ ok: true });
    expect(await authenticateUser(ctx.db, "leaver@eight.example", colleague.password)).toBeNull();
    expect(await removeMember(ctx.db, id, created.admin.userId, created.admin.userId)).toMatchObject({
      reason: "self",
    });
    const second = await addMember(ctx, id, { email: "second@eight.example", role: "member" });
    // The only admin, removed by a (hypothetical) other actor: still refused.
    expect(await removeMember(ctx.db, id, created.admin.userId, second.userId)).toMatchObject({ reason: "last_admin" });
    expect((await listMembers(ctx.db, id)).map((member) => member.email).sort()).toEqual(
      [created.admin.email, "second@eight.example"].sort(),
    );
  });

  it("resets a password: the new one works, the old one not; another organisation's member is not found", async () => {
    const created = await newOrg("Members Nine");
    const theirs = await newOrg("Members Ten");
    const colleague = await addMember(ctx, created.organization.id, { email: "forgot@nine.example", role: "member" });
    const reset = await resetMemberPassword(ctx.db, created.organization.id, colleague.userId);
    if (!reset.ok) throw new Error(reset.message);
    expect(reset.password).not.toBe(colleague.password);
    expect(await authenticateUser(ctx.db, "forgot@nine.example", reset.password)).not.toBeNull();
    expect(await authenticateUser(ctx.db, "forgot@nine.example", colleague.password)).toBeNull();
    expect(await resetMemberPassword(ctx.db, theirs.organization.id, colleague.userId)).toMatchObject({
      reason: "not_found",
    });
    expect(await removeMember(ctx.db, theirs.organization.id, colleague.userId, theirs.admin.userId)).toMatchObject({
      reason: "not_found",
    });
  });
});
