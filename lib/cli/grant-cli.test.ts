import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backends } from "@/lib/testing/harness";
import {
  createTarget,
  expectRefused,
  parseJsonOutput,
  SPAWNING_TIMEOUT_MS,
  sortedKeys,
  type Target,
} from "@/lib/testing/points-cli-fixture";
import { parseCommand } from "./commands";

/*
 * The `grant` commands of docs/contract.md §10: promotional Points, the operator's alone, with the
 * contract's JSON, on the same kind of database the app uses.
 */
describe.each(backends())("npm run points -- grant against %s", { timeout: SPAWNING_TIMEOUT_MS }, (backend) => {
  let target: Target;
  const points = (...args: string[]) => target.points(args);
  beforeAll(async () => {
    target = await createTarget(backend);
  });
  afterAll(async () => {
    await target?.dispose();
  });

  it("creates, replays, refuses other terms, lists and voids a grant, with the contract's JSON", async () => {
    const org = parseJsonOutput(await points("org", "create", "--name", "Granted", "--json"));
    const organizationId = String(org.organization_id);
    const created = parseJsonOutput(
      await points(
        "grant",
        "create",
        organizationId,
        "--points",
        "500",
        "--reason",
        "Welcome credit",
        "--reference",
        "welcome",
        "--expires-in-days",
        "30",
        "--json",
      ),
    );
    expect(sortedKeys(created)).toEqual([
      "expires_at",
      "grant_id",
      "organization_id",
      "points",
      "points_balance",
      "reason",
      "reference",
    ]);
    expect(created).toMatchObject({
      organization_id: organizationId,
      points: 500,
      reason: "Welcome credit",
      reference: "welcome",
      points_balance: 500,
    });
    expect(String(created.grant_id)).toMatch(/^gr_/);
    expect(new Date(String(created.expires_at)).getTime() - Date.now()).toBeGreaterThan(29 * 24 * 3600 * 1000);

    const again = await points(
      "grant",
      "create",
      organizationId,
      "--points",
      "500",
      "--reason",
      "Welcome credit",
      "--reference",
      "welcome",
      "--expires-in-days",
      "30",
    );
    expect(again.code).toBe(0);
    expect(again.stdout).toContain(`Already granted 500 promotional Points to ${organizationId}: ${created.grant_id}.`);
    expectRefused(
      await points(
        "grant",
        "create",
        organizationId,
        "--points",
        "900",
        "--reason",
        "Welcome credit",
        "--reference",
        "welcome",
      ),
      /other terms; nothing was changed/,
    );
    expectRefused(
      await points(
        "grant",
        "create",
        organizationId,
        "--points",
        "5",
        "--reason",
        "Late",
        "--expires-at",
        "2001-01-01T00:00:00Z",
      ),
      /must be in the future/,
    );

    const listed = parseJsonOutput(await points("grant", "list", organizationId, "--json"));
    expect(listed).toEqual({
      grants: [
        {
          grant_id: created.grant_id,
          points: 500,
          remaining: 500,
          reason: "Welcome credit",
          expires_at: created.expires_at,
          status: "active",
        },
      ],
    });
    const voided = parseJsonOutput(await points("grant", "void", String(created.grant_id), "--json"));
    expect(voided).toEqual({ grant_id: created.grant_id, voided_points: 500 });
    const after = parseJsonOutput(await points("grant", "list", organizationId, "--json"));
    expect(after).toMatchObject({ grants: [{ remaining: 0, status: "voided" }] });
    expectRefused(await points("grant", "void", "gr_nobody"), /No grant gr_nobody/);
  });

  it("parses the commands' flags, and refuses both expiries or a missing reason", () => {
    expect(
      parseCommand(["grant", "create", "org_1", "--points", "10", "--reason", "Trial", "--expires-in-days", "7"]),
    ).toEqual({
      kind: "grant-create",
      organizationId: "org_1",
      points: 10,
      reason: "Trial",
      reference: undefined,
      expiresAt: undefined,
      expiresInDays: 7,
      json: false,
    });
    expect(() =>
      parseCommand([
        "grant",
        "create",
        "org_1",
        "--points",
        "10",
        "--reason",
        "x",
        "--expires-at",
        "2030-01-01T00:00:00Z",
        "--expires-in-days",
        "7",
      ]),
    ).toThrow(/give one of them/);
    expect(() => parseCommand(["grant", "create", "org_1", "--points", "10"])).toThrow(
      '"grant create" needs --reason TEXT.',
    );
    expect(parseCommand(["grant", "list", "org_1", "--json"])).toEqual({
      kind: "grant-list",
      organizationId: "org_1",
      json: true,
    });
  });
});
