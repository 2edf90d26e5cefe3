import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { organizations } from "@/lib/db/schema";
import { purchasePoints } from "@/lib/points/purchase";
import { backends } from "@/lib/testing/harness";
import {
  createTarget,
  expectRefused,
  parseJsonOutput,
  SPAWNING_TIMEOUT_MS,
  sortedKeys,
  type Target,
} from "@/lib/testing/points-cli-fixture";
import { startReceiver } from "@/lib/testing/webhook-receiver";
import { WebhookSender } from "@/lib/webhooks/sender";

/*
 * The `webhook` commands of docs/contract.md §8, on the same kind of database the app uses. Most run
 * in this process (Target.points), on the runtime the command would open. `webhook add` runs as a
 * process (Target.spawn): whether it takes the test's plain-http loopback receiver depends on
 * POINTS_WEBHOOKS_ALLOW_PRIVATE in the command's environment, which only a process of its own can be
 * given (lib/env.ts reads the environment once per process).
 */
describe.each(backends())("npm run points -- webhook against %s", { timeout: SPAWNING_TIMEOUT_MS }, (backend) => {
  let target: Target;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  const points = (...args: string[]) => target.points(args);
  const add = (...args: string[]) =>
    target.spawn(["webhook", "add", ...args], { ...target.env, POINTS_WEBHOOKS_ALLOW_PRIVATE: "1" });
  beforeAll(async () => {
    target = await createTarget(backend);
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver?.close();
    await target?.dispose();
  });

  it("adds, lists, rotates, disables, enables and deletes an endpoint, and shows its deliveries", async () => {
    const org = parseJsonOutput(
      await points(
        "org",
        "create",
        "--name",
        "Hooked",
        "--card",
        "visa",
        "--default-card",
        "0",
        "--currency",
        "USD",
        "--json",
      ),
    );
    const organizationId = org.organization_id as string;

    // Without POINTS_WEBHOOKS_ALLOW_PRIVATE, a plain-http loopback URL is refused, and nothing is saved.
    expectRefused(await target.spawn(["webhook", "add", organizationId, "--url", receiver.url]), /https/);
    expectRefused(await add(organizationId, "--url", receiver.url, "--events", "top_up.nope"), /top_up\.nope/);

    const added = parseJsonOutput(
      await add(organizationId, "--url", receiver.url, "--events", "top_up.paid,top_up.failed", "--json"),
    );
    expect(sortedKeys(added)).toEqual(["endpoint_id", "events", "secret", "url"]);
    expect(added).toMatchObject({ url: receiver.url, events: ["top_up.paid", "top_up.failed"] });
    expect(added.endpoint_id).toMatch(/^we_/);
    expect(added.secret).toMatch(/^whsec_[A-Za-z0-9+/=]{32}$/);
    const endpointId = added.endpoint_id as string;

    expect(parseJsonOutput(await points("webhook", "list", organizationId, "--json"))).toEqual({
      endpoints: [
        { endpoint_id: endpointId, url: receiver.url, events: ["top_up.paid", "top_up.failed"], status: "enabled" },
      ],
    });

    // A purchase, sent by a sender as the server runs one.
    await target.withDb(async (services) => {
      const [organization] = await services.db.select().from(organizations).where(eq(organizations.id, organizationId));
      if (!organization) throw new Error("no organisation");
      await purchasePoints(services, { organization, request: { points: 100, reference: "cli-hook" }, source: "api" });
      await new WebhookSender(services, { allowPrivate: true }).drain();
    });
    const [event] = receiver.verified(added.secret as string);
    expect(event).toMatchObject({ type: "top_up.paid", sequence: 1 });
    expect(parseJsonOutput(await points("webhook", "deliveries", endpointId, "--json"))).toEqual({
      deliveries: [
        { event_id: event?.id, attempt: 1, status: "delivered", response_status: 200, next_attempt_at: null },
      ],
    });

    // Nothing missed yet; then an event while it is disabled, recovered once.
    const since = "2000-01-01T00:00:00Z";
    expect(parseJsonOutput(await points("webhook", "recover", endpointId, "--since", since, "--json"))).toEqual({
      endpoint_id: endpointId,
      queued: 0,
    });
    await points("webhook", "disable", endpointId, "--json");
    await target.withDb(async (services) => {
      const [organization] = await services.db.select().from(organizations).where(eq(organizations.id, organizationId));
      if (!organization) throw new Error("no organisation");
      await purchasePoints(services, { organization, request: { points: 100, reference: "cli-off" }, source: "api" });
    });
    expectRefused(await points("webhook", "recover", endpointId, "--since", since), /enable it first/);
    await points("webhook", "enable", endpointId, "--json");
    expect(parseJsonOutput(await points("webhook", "recover", endpointId, "--since", since, "--json"))).toEqual({
      endpoint_id: endpointId,
      queued: 1,
    });
    expect((await points("webhook", "recover", endpointId, "--since", since)).stdout).toContain("nothing queued");
    await target.withDb((services) => new WebhookSender(services, { allowPrivate: true }).drain());
    expect(receiver.verified(added.secret as string).map((got) => got.sequence)).toEqual([1, 2]);

    const rotated = parseJsonOutput(await points("webhook", "rotate", endpointId, "--json"));
    expect(sortedKeys(rotated)).toEqual(["endpoint_id", "secret"]);
    expect(rotated.secret).not.toBe(added.secret);

    expect(parseJsonOutput(await points("webhook", "disable", endpointId, "--json"))).toEqual({
      endpoint_id: endpointId,
      status: "disabled",
    });
    const listed = parseJsonOutput(await points("webhook", "list", organizationId, "--json"));
    expect((listed.endpoints as Array<{ status: string }>)[0]?.status).toBe("disabled");
    expect(parseJsonOutput(await points("webhook", "enable", endpointId, "--json"))).toEqual({
      endpoint_id: endpointId,
      status: "enabled",
    });
    const people = await points("webhook", "list", organizationId);
    expect(people.stdout).toContain(`${endpointId}  enabled`);

    expect(parseJsonOutput(await points("webhook", "delete", endpointId, "--json"))).toEqual({
      endpoint_id: endpointId,
      deleted: true,
    });
    expect(parseJsonOutput(await points("webhook", "list", organizationId, "--json"))).toEqual({ endpoints: [] });
    expectRefused(await points("webhook", "rotate", endpointId), /No webhook endpoint/);

    // Each change is in the audit log, by the operator who ran the command.
    const { entries } = parseJsonOutput(await points("audit", "--org", organizationId, "--json")) as {
      entries: Array<{ actor: { type: string }; action: string; target: string }>;
    };
    expect(sortedKeys(entries[0])).toEqual(["action", "actor", "after", "at", "before", "id", "request_id", "target"]);
    expect(entries.map((entry) => entry.action)).toEqual([
      "webhook_endpoint.deleted",
      "webhook_endpoint.enabled",
      "webhook_endpoint.disabled",
      "webhook_endpoint.secret_rotated",
      "webhook_endpoint.recovered",
      "webhook_endpoint.recovered",
      "webhook_endpoint.enabled",
      "webhook_endpoint.disabled",
      "webhook_endpoint.recovered",
      "webhook_endpoint.added",
      "api_key.created",
      "organization.created",
    ]);
    expect(new Set(entries.map((entry) => entry.actor.type))).toEqual(new Set(["operator"]));
    expectRefused(await points("audit", "--org", "org_nope"), /No organisation org_nope/);
  });

  it("refuses a wrong command line before opening the database", async () => {
    const missing = await points("webhook", "add", "org_x");
    expect([missing.code, missing.stderr]).toEqual([2, expect.stringContaining("--url URL")]);
    const noSince = await points("webhook", "recover", "we_x");
    expect([noSince.code, noSince.stderr]).toEqual([2, expect.stringContaining("--since ISO")]);
    const badSince = await points("webhook", "recover", "we_x", "--since", "yesterday");
    expect([badSince.code, badSince.stderr]).toEqual([2, expect.stringContaining("ISO 8601")]);
    const unknown = await points("webhook", "frobnicate", "we_x");
    expect([unknown.code, unknown.stderr]).toEqual([
      2,
      expect.stringContaining('Unknown command "webhook frobnicate"'),
    ]);
  });
});
