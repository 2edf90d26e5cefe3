import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiKeys } from "@/lib/db/schema";
import { backends, createTestContext, expectThrown, type TestContext } from "@/lib/testing/harness";
import { listAudit } from "../audit";
import { PointsError, ProvisioningError } from "../errors";
import { authenticateApiRequest, createApiKey, listApiKeys, revokeApiKey } from "./api-keys";
import { createOrganization } from "./organizations";

describe.each(backends())("the API keys page on %s", (backend) => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestContext(backend);
  });
  afterAll(async () => {
    await ctx?.close();
  });

  const newOrg = () => createOrganization(ctx, { name: "Keys Page Ltd", settings: { apiPurchasesEnabled: true } });

  it("lists only this organisation's keys, by prefix, never the key or its hash", async () => {
    const mine = await newOrg();
    const theirs = await newOrg();
    ctx.clock.advance(1000);
    const second = await createApiKey(ctx.db, mine.organization.id, ctx.clock);

    const keys = await listApiKeys(ctx.db, mine.organization.id);
    expect(keys.map((key) => key.id)).toEqual([second.keyId, mine.apiKey.keyId]);
    expect(keys.map((key) => key.prefix)).toEqual([second.prefix, mine.apiKey.prefix]);
    expect(keys.some((key) => key.id === theirs.apiKey.keyId)).toBe(false);
    const serialised = JSON.stringify(keys);
    expect(serialised).not.toContain(second.apiKey);
    expect(Object.keys(keys[0] ?? {}).sort()).toEqual([
      "createdAt",
      "dailyPointsCap",
      "id",
      "lastUsedAt",
      "name",
      "prefix",
      "revokedAt",
      "scope",
    ]);
  });

  it("shows when a key was last used, and revoked keys after the active ones", async () => {
    const created = await newOrg();
    const usedAt = ctx.clock.now();
    await authenticateApiRequest(ctx.db, `Bearer ${created.apiKey.apiKey}`, ctx.clock);
    ctx.clock.advance(1000);
    const spare = await createApiKey(ctx.db, created.organization.id, ctx.clock);
    await revokeApiKey(ctx.db, spare.keyId, ctx.clock, created.organization.id);

    const [first, last] = await listApiKeys(ctx.db, created.organization.id);
    expect(first).toMatchObject({ id: created.apiKey.keyId, lastUsedAt: usedAt, revokedAt: null });
    expect(last).toMatchObject({ id: spare.keyId, lastUsedAt: null, revokedAt: ctx.clock.now() });
  });

  it("an admin cannot revoke another organisation's key, and that key keeps working", async () => {
    const mine = await newOrg();
    const theirs = await newOrg();
    expect(await revokeApiKey(ctx.db, theirs.apiKey.keyId, ctx.clock, mine.organization.id)).toBe(false);
    const stillWorks = await authenticateApiRequest(ctx.db, `Bearer ${theirs.apiKey.apiKey}`, ctx.clock);
    expect(stillWorks.id).toBe(theirs.organization.id);
    expect((await listApiKeys(ctx.db, theirs.organization.id))[0]?.revokedAt).toBeNull();
  });

  it("a key revoked from the dashboard is refused by the API at once", async () => {
    const created = await newOrg();
    expect(await revokeApiKey(ctx.db, created.apiKey.keyId, ctx.clock, created.organization.id)).toBe(true);
    const refused = await authenticateApiRequest(ctx.db, `Bearer ${created.apiKey.apiKey}`, ctx.clock).catch(
      (error: unknown) => error,
    );
    if (!(refused instanceof PointsError)) throw new Error("A revoked key was accepted.");
    expect(refused.code).toBe("invalid_api_key");
    // Revoking twice is harmless and says nothing changed.
    expect(await revokeApiKey(ctx.db, created.apiKey.keyId, ctx.clock, created.organization.id)).toBe(false);
  });

  describe("names", () => {
    it("a key keeps the name it was given, trimmed; one made without a name is an unnamed key", async () => {
      const created = await newOrg();
      const named = await createApiKey(ctx.db, created.organization.id, ctx.clock, { name: "  Build server  " });
      expect(named.name).toBe("Build server");
      const keys = new Map((await listApiKeys(ctx.db, created.organization.id)).map((key) => [key.id, key.name]));
      expect(keys.get(named.keyId)).toBe("Build server");
      // The organisation's first key is made by its operator without a name.
      expect(keys.get(created.apiKey.keyId)).toBe("Unnamed key");
    });

    it("counts characters, not bytes or UTF-16 units: 100 fit, 101 do not", async () => {
      const created = await newOrg();
      const hundred = "🔑".repeat(100);
      expect((await createApiKey(ctx.db, created.organization.id, ctx.clock, { name: hundred })).name).toBe(hundred);
      await expectThrown(ProvisioningError, () =>
        createApiKey(ctx.db, created.organization.id, ctx.clock, { name: "é".repeat(101) }),
      );
      // The column's check holds the same length, for a writer that skipped createApiKey.
      await expect(
        ctx.db
          .update(apiKeys)
          .set({ name: "x".repeat(101) })
          .where(eq(apiKeys.id, created.apiKey.keyId)),
      ).rejects.toThrow();
    });

    it.each([
      ["empty", "", "must not be empty"],
      ["only spaces", "   ", "must not be empty"],
      ["over 100 characters", "k".repeat(101), "must be at most 100 characters, not 101"],
      ["two lines", "Build\nserver", "must be one line of text, without tabs or control characters"],
      ["a control character", "Build\u001b[31m server", "must be one line of text, without tabs or control characters"],
    ])(
      "a name that is %s is refused on its field, and nothing is created or recorded",
      async (_label, name, problem) => {
        const created = await newOrg();
        const before = await listApiKeys(ctx.db, created.organization.id);
        const auditBefore = await listAudit(ctx.db, { organizationId: created.organization.id });
        const refused = await expectThrown(ProvisioningError, () =>
          createApiKey(ctx.db, created.organization.id, ctx.clock, { name }),
        );
        expect(refused.code).toBe("invalid_request");
        expect(refused.details.fields).toEqual({ name: problem });
        expect(refused.message).toMatch(/nothing was created/);
        expect(await listApiKeys(ctx.db, created.organization.id)).toEqual(before);
        expect(await listAudit(ctx.db, { organizationId: created.organization.id })).toEqual(auditBefore);
      },
    );

    it("the audit log names the key when it is created and when it is revoked", async () => {
      const created = await newOrg();
      const key = await createApiKey(ctx.db, created.organization.id, ctx.clock, { name: "Nightly export" });
      await revokeApiKey(ctx.db, key.keyId, ctx.clock, created.organization.id);
      const entries = await listAudit(ctx.db, { organizationId: created.organization.id });
      const made = entries.find((entry) => entry.action === "api_key.created" && entry.target === key.keyId);
      const revoked = entries.find((entry) => entry.action === "api_key.revoked" && entry.target === key.keyId);
      expect(made?.after).toEqual({
        name: "Nightly export",
        prefix: key.prefix,
        scope: "purchase",
        daily_points_cap: null,
      });
      expect(revoked?.before).toMatchObject({ name: "Nightly export", prefix: key.prefix });
    });
  });
});
