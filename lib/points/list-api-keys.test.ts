import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backends, createTestContext, type TestContext } from "@/lib/testing/harness";
import { authenticateApiRequest, createApiKey, listApiKeys, revokeApiKey } from "./api-keys";
import { PointsError } from "./errors";
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
});
