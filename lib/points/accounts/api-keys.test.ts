import { createHash } from "node:crypto";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiKeys } from "@/lib/db/schema";
import { backends, createTestContext, expectPointsError, type TestContext } from "@/lib/testing/harness";
import { authenticateApiRequest, createApiKey, revokeApiKey } from "./api-keys";
import { createOrganization, type OrganizationSettings } from "./organizations";

describe.each(backends())("API keys on %s", (backend) => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestContext(backend);
  });
  afterAll(async () => {
    await ctx?.close();
  });

  const newOrg = (settings: OrganizationSettings = { apiPurchasesEnabled: true }) =>
    createOrganization(ctx, { name: "Keys GmbH", settings });

  const authenticate = (header: string | null) => authenticateApiRequest(ctx.db, header, ctx.clock);

  const refusal = expectPointsError;

  async function keyRow(keyId: string) {
    const [row] = await ctx.db.select().from(apiKeys).where(eq(apiKeys.id, keyId));
    if (!row) throw new Error(`No key ${keyId}`);
    return row;
  }

  it("a created key authenticates as its own organisation", async () => {
    const mine = await newOrg();
    const theirs = await newOrg();
    expect((await authenticate(`Bearer ${mine.apiKey.apiKey}`)).id).toBe(mine.organization.id);
    expect((await authenticate(`Bearer ${theirs.apiKey.apiKey}`)).id).toBe(theirs.organization.id);
  });

  it("a second key for the same organisation works alongside the first", async () => {
    const created = await newOrg();
    const second = await createApiKey(ctx.db, created.organization.id, ctx.clock);
    expect(second.apiKey).not.toBe(created.apiKey.apiKey);
    expect((await authenticate(`Bearer ${second.apiKey}`)).id).toBe(created.organization.id);
    expect((await authenticate(`Bearer ${created.apiKey.apiKey}`)).id).toBe(created.organization.id);
  });

  it("stores only the SHA-256 hash and a short prefix, never the key itself", async () => {
    const created = await newOrg();
    const { apiKey, keyId, prefix } = created.apiKey;
    const row = await keyRow(keyId);
    expect(row.hash).toBe(createHash("sha256").update(apiKey).digest("hex"));
    expect(row.prefix).toBe(prefix);
    expect(apiKey.startsWith(prefix)).toBe(true);
    expect(prefix.length).toBeLessThan(apiKey.length / 2);
    expect(Object.values(row).some((value) => typeof value === "string" && value.includes(apiKey))).toBe(false);
  });

  it("a revoked key is refused with invalid_api_key, and revoking twice reports nothing to revoke", async () => {
    const created = await newOrg();
    expect(await revokeApiKey(ctx.db, created.apiKey.keyId, ctx.clock)).toBe(true);
    const error = await refusal(() => authenticate(`Bearer ${created.apiKey.apiKey}`));
    expect(error.code).toBe("invalid_api_key");
    expect(error.status).toBe(403);
    expect(await revokeApiKey(ctx.db, created.apiKey.keyId, ctx.clock)).toBe(false);
  });

  it("revoking one key leaves the organisation's other keys working", async () => {
    const created = await newOrg();
    const second = await createApiKey(ctx.db, created.organization.id, ctx.clock);
    await revokeApiKey(ctx.db, created.apiKey.keyId, ctx.clock);
    expect((await authenticate(`Bearer ${second.apiKey}`)).id).toBe(created.organization.id);
  });

  it("cannot be revoked through another organisation", async () => {
    const created = await newOrg();
    const other = await newOrg();
    expect(await revokeApiKey(ctx.db, created.apiKey.keyId, ctx.clock, other.organization.id)).toBe(false);
    expect((await authenticate(`Bearer ${created.apiKey.apiKey}`)).id).toBe(created.organization.id);
  });

  describe("the Authorization header", () => {
    it.each([
      ["lower-case bearer", (key: string) => `bearer ${key}`],
      ["upper-case BEARER", (key: string) => `BEARER ${key}`],
      ["several spaces after the scheme (RFC 7235 allows 1*SP)", (key: string) => `Bearer   ${key}`],
      ["trailing whitespace", (key: string) => `Bearer ${key} `],
    ])("is accepted with %s", async (_label, header) => {
      const created = await newOrg();
      expect((await authenticate(header(created.apiKey.apiKey))).id).toBe(created.organization.id);
    });

    it.each([
      ["missing", () => null],
      ["empty", () => ""],
      ["the bare key, without a scheme", (key: string) => key],
      ["the scheme alone", () => "Bearer"],
      ["the scheme and a space", () => "Bearer "],
      ["another scheme", (key: string) => `Basic ${key}`],
      ["the scheme glued to the key", (key: string) => `Bearer${key}`],
      ["a second token after the key", (key: string) => `Bearer ${key} extra`],
      ["a space inside the key", (key: string) => `Bearer ${key.slice(0, 10)} ${key.slice(10)}`],
      ["one character short", (key: string) => `Bearer ${key.slice(0, -1)}`],
      ["one character long", (key: string) => `Bearer ${key}x`],
      ["the wrong prefix", (key: string) => `Bearer sk_${key.slice(4)}`],
      ["a well-formed key that was never issued", (key: string) => `Bearer pts_${"A".repeat(key.length - 4)}`],
      [
        "the stored hash instead of the key",
        (key: string) => `Bearer ${createHash("sha256").update(key).digest("hex")}`,
      ],
    ])("is refused with invalid_api_key when %s", async (_label, header) => {
      const created = await newOrg();
      const error = await refusal(() => authenticate(header(created.apiKey.apiKey)));
      expect(error.code).toBe("invalid_api_key");
      expect(error.status).toBe(403);
      expect(error.message).not.toContain(created.apiKey.apiKey);
    });
  });

  describe("last_used_at", () => {
    it("is set on first use and not rewritten within a minute, then rewritten after it", async () => {
      const created = await newOrg();
      const header = `Bearer ${created.apiKey.apiKey}`;
      expect((await keyRow(created.apiKey.keyId)).lastUsedAt).toBeNull();

      const firstUse = ctx.clock.now();
      await authenticate(header);
      expect((await keyRow(created.apiKey.keyId)).lastUsedAt).toEqual(firstUse);

      ctx.clock.advance(59_999);
      await authenticate(header);
      expect((await keyRow(created.apiKey.keyId)).lastUsedAt).toEqual(firstUse);

      ctx.clock.advance(1);
      await authenticate(header);
      expect((await keyRow(created.apiKey.keyId)).lastUsedAt).toEqual(ctx.clock.now());
    });

    it("is not touched by a refused (revoked) key", async () => {
      const created = await newOrg();
      await revokeApiKey(ctx.db, created.apiKey.keyId, ctx.clock);
      await refusal(() => authenticate(`Bearer ${created.apiKey.apiKey}`));
      expect((await keyRow(created.apiKey.keyId)).lastUsedAt).toBeNull();
    });
  });

  describe("organisation access, in the contract's order", () => {
    it("answers not_available (404) before api_purchases_disabled when both apply", async () => {
      const created = await newOrg({ apiAvailable: false, apiPurchasesEnabled: false });
      const error = await refusal(() => authenticate(`Bearer ${created.apiKey.apiKey}`));
      expect([error.code, error.status]).toEqual(["not_available", 404]);
    });

    it("answers not_available for an unavailable organisation even with purchases enabled", async () => {
      const created = await newOrg({ apiAvailable: false, apiPurchasesEnabled: true });
      expect((await refusal(() => authenticate(`Bearer ${created.apiKey.apiKey}`))).code).toBe("not_available");
    });

    it("answers api_purchases_disabled (403) for an available organisation that has not enabled purchases", async () => {
      const created = await createOrganization(ctx, { name: "Fresh Org" });
      const error = await refusal(() => authenticate(`Bearer ${created.apiKey.apiKey}`));
      expect([error.code, error.status]).toEqual(["api_purchases_disabled", 403]);
    });

    it("answers invalid_api_key before not_available: a revoked key learns nothing about its organisation", async () => {
      const created = await newOrg({ apiAvailable: false, apiPurchasesEnabled: false });
      await revokeApiKey(ctx.db, created.apiKey.keyId, ctx.clock);
      expect((await refusal(() => authenticate(`Bearer ${created.apiKey.apiKey}`))).code).toBe("invalid_api_key");
    });
  });
});
