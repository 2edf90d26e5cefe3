import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomString } from "@/lib/ids";
import { createOrganization } from "@/lib/points/accounts/organizations";
import { createTestContext, openInstance, type TestContext } from "@/lib/testing/harness";
import { addEndpoint, getEndpoint, rotateSecret, signingSecrets } from "./endpoints";

/* Rotations of one endpoint racing on a real Postgres server, from two "instances" (two pools). */
describe("concurrent rotations of a webhook secret on two instances (Postgres)", () => {
  let first: TestContext;
  let second: TestContext;

  beforeAll(async () => {
    first = await createTestContext("postgres", { maxConnections: 8 });
    second = await openInstance(first);
  });
  afterAll(async () => {
    await second?.close();
    await first?.close();
  });

  it("6 rotations at once: every secret handed out signs, with the one before them", async () => {
    const { organization } = await createOrganization(first, {
      name: `Rotations ${randomString(4)}`,
      settings: { currency: "USD" },
    });
    const { endpoint, secret: original } = await addEndpoint(first, organization.id, {
      url: "https://hooks.example.com/in",
      allowPrivate: false,
    });
    const rotated = await Promise.all(
      Array.from({ length: 6 }, (_, index) => rotateSecret(index % 2 ? second : first, endpoint.id)),
    );
    const now = await getEndpoint(first.db, endpoint.id);
    expect(signingSecrets(now, first.clock.now()).sort()).toEqual(
      [original, ...rotated.map((each) => each.secret)].sort(),
    );
  });
});
