import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authenticateUser } from "@/lib/auth/users";
import { backends, createTestContext, type TestContext, expectPointsError } from "@/lib/testing/harness";
import { addMember, listMembers } from "./members";
import { createOrganization } from "./organizations";

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
});
