import { describe, expect, it, vi } from "vitest";
import type { Db } from "@/lib/db/client";
import { releaseLease } from "./lease";

/**
 * A database whose first `failures` updates fail as a restarting Postgres or PgBouncer fails them
 * (postgres.js's CONNECTION_CLOSED, wrapped as drizzle wraps it), then succeed.
 */
function flakyDb(failures: number) {
  const calls: string[] = [];
  const db = {
    update: () => ({
      set: () => ({
        where: async () => {
          calls.push(calls.length < failures ? "failed" : "released");
          if (calls.length <= failures) {
            throw Object.assign(new Error("Failed query: update top_ups"), {
              cause: Object.assign(new Error("write CONNECTION_CLOSED 127.0.0.1:6432"), { code: "CONNECTION_CLOSED" }),
            });
          }
          return [];
        },
      }),
    }),
  };
  return { db: db as unknown as Db, calls };
}

describe("releasing a purchase's lease", () => {
  it("tries again while the database is away, so the purchase's next retry is not held until the lease runs out", async () => {
    const { db, calls } = flakyDb(3);
    await releaseLease(db, "tu_1", "token", [5, 5, 5, 5, 5]);
    await vi.waitFor(() => expect(calls).toEqual(["failed", "failed", "failed", "released"]), { timeout: 2_000 });
  });

  it("does not hold the request for the retries, and never rejects, even when every try fails", async () => {
    const { db, calls } = flakyDb(100);
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on("unhandledRejection", onUnhandled);
    try {
      await expect(releaseLease(db, "tu_2", "token", [5, 5])).resolves.toBeUndefined();
      expect(calls).toHaveLength(1);
      await vi.waitFor(() => expect(calls).toHaveLength(3), { timeout: 2_000 });
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(calls).toHaveLength(3);
      expect(unhandled).toEqual([]);
    } finally {
      process.off("unhandledRejection", onUnhandled);
    }
  });

  it("stops at the first success", async () => {
    const { db, calls } = flakyDb(0);
    await releaseLease(db, "tu_3", "token", [5, 5]);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(calls).toEqual(["released"]);
  });
});
