import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

/*
 * The session secret (docs/contract.md §6). Each case loads the modules afresh: the environment is
 * parsed once per process, and the secret is kept once read.
 */
describe("the secret that signs dashboard sessions", () => {
  const saved = { ...process.env };
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "points-secret-"));
    vi.spyOn(process, "cwd").mockReturnValue(dir);
    delete process.env.AUTH_SECRET;
    delete process.env.NEXTAUTH_SECRET;
    vi.resetModules();
  });
  afterEach(() => {
    process.env = { ...saved };
    vi.restoreAllMocks();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  async function load() {
    return import("./secret");
  }
  const setEnv = (values: Record<string, string>) => Object.assign(process.env, values);

  it("in production, refuses to start without one and says how to make one", async () => {
    setEnv({ NODE_ENV: "production" });
    const { authSecret, AuthSecretError } = await load();
    expect(() => authSecret()).toThrow(AuthSecretError);
    expect(() => authSecret()).toThrow(/AUTH_SECRET is not set.*openssl rand -base64 32/);
    expect(fs.existsSync(path.join(dir, ".data"))).toBe(false);
  });

  it("refuses a secret shorter than 32 bytes, in production and out of it", async () => {
    setEnv({ NODE_ENV: "production", AUTH_SECRET: "short-and-guessable" });
    const { authSecret } = await load();
    expect(() => authSecret()).toThrow(/shorter than 32 bytes/);
  });

  it("accepts NEXTAUTH_SECRET as next-auth v4 names it", async () => {
    const secret = "n".repeat(44);
    setEnv({ NODE_ENV: "production", NEXTAUTH_SECRET: secret });
    const { authSecret } = await load();
    expect(authSecret()).toBe(secret);
  });

  it("in development, generates a random secret once, keeps it under .data/ and reuses it", async () => {
    setEnv({ NODE_ENV: "development" });
    const generated = vi.fn();
    const first = (await load()).authSecret({ onGenerated: generated });
    const file = path.join(dir, ".data", "auth-secret");
    expect(fs.readFileSync(file, "utf8").trim()).toBe(first);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(Buffer.byteLength(first)).toBeGreaterThanOrEqual(32);
    expect(generated).toHaveBeenCalledExactlyOnceWith(file);

    vi.resetModules();
    const again = (await load()).authSecret({ onGenerated: generated });
    expect(again).toBe(first);
    expect(generated).toHaveBeenCalledTimes(1); // Said once, when it was made.

    fs.rmSync(file);
    vi.resetModules();
    expect((await load()).authSecret()).not.toBe(first);
  });
});
