import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, type TestContext } from "@/lib/testing/harness";
import { listApiKeys } from "./api-keys";
import { demoInfoFile, demoPasswordWorks, seedDemo } from "./seed";

/* The embedded default's first start: a demo organisation whose key says what it is. */
describe("the demo organisation", () => {
  let ctx: TestContext;
  let dataDir: string;
  beforeAll(async () => {
    ctx = await createTestContext("pglite");
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "points-seed-"));
  });
  afterAll(async () => {
    await ctx?.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it("is seeded once, with its key named Demo key and an admin whose kept password works", async () => {
    const demo = await seedDemo(ctx, dataDir);
    expect(demo).not.toBeNull();
    if (!demo) return;
    const keys = await listApiKeys(ctx.db, demo.organization_id);
    expect(keys.map((key) => key.name)).toEqual(["Demo key"]);
    expect(JSON.parse(fs.readFileSync(demoInfoFile(dataDir), "utf8"))).toEqual(demo);
    expect(await demoPasswordWorks(ctx.db, demo)).toBe(true);
    expect(await demoPasswordWorks(ctx.db, { ...demo, admin: { ...demo.admin, password: "not-the-password" } })).toBe(
      false,
    );
    // A second start finds it and seeds nothing more.
    expect(await seedDemo(ctx, dataDir)).toEqual(demo);
    expect(await listApiKeys(ctx.db, demo.organization_id)).toHaveLength(1);
  });
});
