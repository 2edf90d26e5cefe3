import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listApiKeys } from "@/lib/points/accounts/api-keys";
import { backends } from "@/lib/testing/harness";
import {
  createTarget,
  expectRefused,
  parseJsonOutput,
  runPoints,
  SPAWNING_TIMEOUT_MS,
  sortedKeys,
  type Target,
} from "@/lib/testing/points-cli-fixture";

/*
 * `key create --name`, run as an operator runs it, in a child process: the key keeps the name (as
 * createApiKey trims and checks it), the --json object stays as CONTRACT §7 fixes it, and the
 * output for a person says the name.
 */
describe.each(backends())(
  "npm run points -- key create --name against %s",
  { timeout: SPAWNING_TIMEOUT_MS },
  (backend) => {
    let target: Target;
    const points = (...args: string[]) => runPoints(target.env, args);
    beforeAll(async () => {
      target = await createTarget(backend);
    });
    afterAll(async () => target?.dispose());

    it("names the key, keeps the contract's JSON, calls a key made without a name Unnamed key, and refuses a blank one", async () => {
      const org = parseJsonOutput(await points("org", "create", "--name", "Named Keys Ltd", "--json"));
      const organizationId = org.organization_id as string;

      const named = parseJsonOutput(
        await points("key", "create", organizationId, "--name", " Status page ", "--scope", "read", "--json"),
      );
      expect(sortedKeys(named)).toEqual(["api_key", "daily_points_cap", "key_id", "organization_id", "scope"]);

      const unnamed = await points("key", "create", organizationId, "--scope", "spend");
      expect(unnamed.code, unnamed.stderr).toBe(0);
      expect(unnamed.stdout).toMatch(/\n {2}name: +Unnamed key\n/);
      expect(unnamed.stdout).toMatch(/\n {2}scope: +spend \(reads, quotes and spends; no purchases\)\n/);
      const unnamedId = /Created API key (\S+) /.exec(unnamed.stdout)?.[1];

      expectRefused(await points("key", "create", organizationId, "--name", "   "), /^--name must not be empty/);

      const names = await target.withDb(async (services) =>
        Object.fromEntries((await listApiKeys(services.db, organizationId)).map((key) => [key.id, key.name])),
      );
      expect(names).toEqual({
        [org.key_id as string]: "Unnamed key",
        [named.key_id as string]: "Status page",
        [unnamedId ?? "?"]: "Unnamed key",
      });
    });
  },
);
