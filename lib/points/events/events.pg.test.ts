import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomString } from "@/lib/ids";
import { createTestContext, openInstance, type TestContext } from "@/lib/testing/harness";
import { createOrganization } from "../accounts/organizations";
import { PointsError } from "../errors";
import { purchasePoints } from "../purchase";
import type { Services } from "../services";
import { spendPoints } from "../spends/spends";
import { listEvents } from "./events";

/*
 * The feed followed while it is written, on a real Postgres server from two "instances" (two pools
 * on one database), as integrators read it: poll `after=<last seen>` until caught up, again and again.
 */
describe("the events feed followed during writes on two instances (Postgres)", () => {
  let first: TestContext;
  let second: TestContext;

  beforeAll(async () => {
    first = await createTestContext("postgres", { maxConnections: 12 });
    second = await openInstance(first);
  });
  afterAll(async () => {
    await second?.close();
    await first?.close();
  });

  it("four readers following four writers see every event once, in order, and never a 410", async () => {
    const { organization } = await createOrganization(first, {
      name: `Feed race ${randomString(4)}`,
      settings: { currency: "USD", apiPurchasesEnabled: true },
      cards: ["visa"],
      defaultCardIndex: 0,
    });
    await purchasePoints(first, { organization, request: { points: 1000, reference: "fund" }, source: "api" });
    const instances: Services[] = [first, second];
    const writers = 4;
    const spendsEach = 60;
    const total = 1 + writers * spendsEach;

    let writing = true;
    const written = Promise.all(
      Array.from({ length: writers }, async (_, writer) => {
        for (let index = 0; index < spendsEach; index++) {
          await spendPoints(instances[writer % 2] as Services, {
            organizationId: organization.id,
            request: { points: 1, reference: `w${writer}-${index}` },
            source: "api",
          });
        }
      }),
    ).finally(() => {
      writing = false;
    });

    const expired: string[] = [];
    const follow = async (reader: number): Promise<number[]> => {
      const seen: number[] = [];
      let after = 0;
      for (let reads = 0; reads < 20_000; reads++) {
        const done = !writing;
        try {
          const page = await listEvents((instances[reader % 2] as Services).db, organization.id, { after, limit: 7 });
          for (const event of page.events) seen.push(event.sequence);
          after = seen.at(-1) ?? after;
          if (done && !page.hasMore && page.events.length === 0) break;
        } catch (error) {
          if (!(error instanceof PointsError)) throw error;
          expired.push(`after=${after}: ${error.code} ${JSON.stringify(error.details)}`);
          after = Number((error.details as { oldest_sequence: number }).oldest_sequence) - 1;
        }
      }
      return seen;
    };
    const [read] = await Promise.all([Promise.all(Array.from({ length: 4 }, (_, reader) => follow(reader))), written]);

    expect(expired).toEqual([]);
    const everyOne = Array.from({ length: total }, (_, index) => index + 1);
    for (const seen of read) expect(seen).toEqual(everyOne);
  });
});
