import { eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { auditLog } from "@/lib/db/schema";
import { randomString } from "@/lib/ids";
import { runAsUser, runWithRequestContext } from "@/lib/observability/context";
import { backendsAndProviders, type ProviderTestContext } from "@/lib/testing/harness";
import { serviceSuite } from "@/lib/testing/invariants";
import { addEndpoint } from "@/lib/webhooks/endpoints";
import { createApiKey, revokeApiKey } from "./accounts/api-keys";
import { addMember, changeMemberRole, removeMember } from "./accounts/members";
import { createOrganization } from "./accounts/organizations";
import { listAudit, recordAudit, toAuditJson } from "./audit";
import { saveSettings } from "./cards/settings";
import { purchasePoints } from "./purchase";

describe.each(backendsAndProviders())("The audit log (%s, %s provider)", (backend, provider) => {
  let ctx: ProviderTestContext;
  const track = serviceSuite(backend, provider, (made) => {
    ctx = made;
  });

  async function setup() {
    const created = await createOrganization(ctx, {
      name: `Audited ${randomString(4)}`,
      settings: { currency: "USD", apiPurchasesEnabled: true },
      cards: ["visa"],
      defaultCardIndex: 0,
    });
    track(created.organization.id);
    const admin = { userId: created.admin.userId, organizationId: created.organization.id };
    const entries = async () =>
      (await listAudit(ctx.db, { organizationId: created.organization.id })).map(toAuditJson).reverse();
    return { ...created, admin, entries };
  }

  it("records who changed a setting, with before, after and the request", async () => {
    const { organization, admin, entries } = await setup();
    await runAsUser(admin, "req_settings_1", () =>
      saveSettings(ctx, organization.id, { apiPurchasesEnabled: false, currency: "GBP" }),
    );
    await runAsUser(admin, "req_settings_2", () =>
      saveSettings(ctx, organization.id, { apiPurchasesEnabled: false, currency: "GBP" }),
    ); // nothing changed: nothing recorded
    const changed = (await entries()).filter((entry) => entry.action === "settings.updated");
    expect(changed).toEqual([
      {
        id: expect.stringMatching(/^aud_/),
        at: ctx.clock.now().toISOString(),
        actor: { type: "user", id: admin.userId },
        action: "settings.updated",
        target: organization.id,
        before: expect.objectContaining({ api_purchases_enabled: true, currency: "USD" }),
        after: expect.objectContaining({ api_purchases_enabled: false, currency: "GBP" }),
        request_id: "req_settings_1",
      },
    ]);
  });

  it("records keys created and revoked with their scope, and members added, promoted and removed", async () => {
    const { organization, admin, entries } = await setup();
    const key = await runAsUser(admin, "req_key", () =>
      createApiKey(ctx.db, organization.id, ctx.clock, { scope: "read" }),
    );
    await runAsUser(admin, "req_revoke", () => revokeApiKey(ctx.db, key.keyId, ctx.clock, organization.id));
    const member = await runAsUser(admin, "req_member", () =>
      addMember(ctx, organization.id, { email: `m-${randomString(6)}@audit.example`, role: "member" }),
    );
    await runAsUser(admin, "req_role", () => changeMemberRole(ctx.db, organization.id, member.userId, "admin"));
    await runAsUser(admin, "req_remove", () => removeMember(ctx.db, organization.id, member.userId, admin.userId));
    const byUser = (await entries()).filter((entry) => entry.actor.type === "user");
    expect(byUser.map((entry) => [entry.action, entry.target, entry.request_id])).toEqual([
      ["api_key.created", key.keyId, "req_key"],
      ["api_key.revoked", key.keyId, "req_revoke"],
      ["member.added", member.userId, "req_member"],
      ["member.role_changed", member.userId, "req_role"],
      ["member.removed", member.userId, "req_remove"],
    ]);
    expect(byUser[0]?.after).toMatchObject({ scope: "read", daily_points_cap: null });
    expect(byUser[3]).toMatchObject({ before: { role: "member" }, after: { role: "admin" } });
  });

  it("names the operator of a command, and records the organisation's creation", async () => {
    const { organization, entries } = await setup();
    await runWithRequestContext({ requestId: "req_cli", actor: { type: "operator", id: "ops" } }, () =>
      addEndpoint(ctx, organization.id, { url: "https://hooks.example.com/points", allowPrivate: false }),
    );
    const all = await entries();
    expect(all.slice(0, 2).map((entry) => entry.action)).toEqual(["organization.created", "api_key.created"]);
    expect(all.at(-1)).toMatchObject({
      actor: { type: "operator", id: "ops" },
      action: "webhook_endpoint.added",
      after: { url: "https://hooks.example.com/points", events: null },
      request_id: "req_cli",
    });
  });

  it("records a purchase started in the dashboard, not one made by the API", async () => {
    const { organization, admin, entries } = await setup();
    const bought = await runAsUser(admin, "req_buy", () =>
      purchasePoints(ctx, { organization, request: { points: 250, reference: "dash-1" }, source: "dashboard" }),
    );
    await purchasePoints(ctx, { organization, request: { points: 100, reference: "api-1" }, source: "api" });
    const started = (await entries()).filter((entry) => entry.action === "top_up.started");
    expect(started).toEqual([
      expect.objectContaining({
        actor: { type: "user", id: admin.userId },
        target: bought.topUp.id,
        after: expect.objectContaining({ reference: "dash-1", points: 250 }),
      }),
    ]);
  });

  it("keeps entries append-only: the database refuses to change or delete one, and a rollback leaves none", async () => {
    const { organization, entries } = await setup();
    const [first] = await entries();
    /** The database's own refusal, under the driver's wrapping of it. */
    const refusal = async (change: Promise<unknown>) => {
      const error = await change.then(
        () => null,
        (thrown: unknown) => thrown as Error & { cause?: Error },
      );
      return `${error?.message ?? "no error"} ${error?.cause?.message ?? ""}`;
    };
    const target = eq(auditLog.id, first?.id ?? "");
    expect(await refusal(ctx.db.update(auditLog).set({ action: "tampered" }).where(target))).toMatch(/append-only/);
    expect(await refusal(ctx.db.delete(auditLog).where(target))).toMatch(/append-only/);
    expect(await refusal(ctx.db.execute(sql`truncate audit_log`))).toMatch(/append-only/);
    expect((await entries())[0]).toEqual(first);
    const count = (await entries()).length;
    await expect(
      ctx.db.transaction(async (tx) => {
        await recordAudit(tx, {
          organizationId: organization.id,
          action: "settings.updated",
          target: organization.id,
          at: ctx.clock.now(),
        });
        throw new Error("the change failed (injected)");
      }),
    ).rejects.toThrow("injected");
    expect(await entries()).toHaveLength(count);
  });
});
