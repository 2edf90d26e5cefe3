import { afterEach, describe, expect, it, vi } from "vitest";
import type { Database } from "@/lib/db/client";
import type { DemoInfo } from "@/lib/points/accounts/seed";
import { demoSignInHint } from "./demo-hint";

/* The sign-in page's hint of `npm run dev`: where the demo admin's password is, never the password. */
const demo: DemoInfo = {
  organization_id: "org_demo",
  api_key: "pts_demo",
  admin: { email: "admin@demo.example", password: "a-secret-password-x" },
  payment_methods: [],
};
const embedded = { kind: "pglite", location: "/work/app/.data/pglite" } as Database;

describe("demoSignInHint", () => {
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it("under next dev with the demo seeded: the admin's email and the file beside the database", async () => {
    vi.stubEnv("NODE_ENV", "development");
    const hint = await demoSignInHint(async () => ({ demo, database: embedded }), "/work/app");
    expect(hint).toEqual({ email: "admin@demo.example", file: ".data/demo.json" });
    expect(JSON.stringify(hint)).not.toContain(demo.admin.password);
    // A database outside the project is named in full.
    const outside = { ...embedded, location: "/tmp/x/pglite" };
    expect((await demoSignInHint(async () => ({ demo, database: outside }), "/work/app"))?.file).toBe(
      "/tmp/x/demo.json",
    );
  });

  it("says nothing in production or in tests, where it does not even ask for the runtime", async () => {
    const runtime = vi.fn(async () => ({ demo, database: embedded }));
    for (const mode of ["production", "test"]) {
      vi.stubEnv("NODE_ENV", mode);
      expect(await demoSignInHint(runtime, "/work/app")).toBeNull();
    }
    expect(runtime).not.toHaveBeenCalled();
  });

  it("says nothing without a demo, on Postgres, or when the runtime cannot start", async () => {
    vi.stubEnv("NODE_ENV", "development");
    expect(await demoSignInHint(async () => ({ demo: null, database: embedded }))).toBeNull();
    const postgres = { kind: "postgres", location: "postgres://db/points" } as Database;
    expect(await demoSignInHint(async () => ({ demo, database: postgres }))).toBeNull();
    expect(await demoSignInHint(() => Promise.reject(new Error("database unreachable")))).toBeNull();
  });
});
