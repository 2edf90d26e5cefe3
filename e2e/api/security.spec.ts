import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect, test } from "@playwright/test";

/*
 * What a production build says about itself to a browser, and what it refuses to start without.
 */
test.describe("security headers", () => {
  for (const target of ["/", "/signin", "/dashboard", "/v3/points/payment-methods"]) {
    test(`${target} forbids framing, sniffing and leaking its paths`, async ({ request }) => {
      const response = await request.get(target, { maxRedirects: 0 });
      const headers = response.headers();
      expect(headers["content-security-policy"]).toContain("frame-ancestors 'none'");
      expect(headers["x-frame-options"]).toBe("DENY");
      expect(headers["x-content-type-options"]).toBe("nosniff");
      expect(headers["referrer-policy"]).toBe("strict-origin-when-cross-origin");
      expect(headers["strict-transport-security"]).toContain("max-age=");
    });
  }
});

test.describe("the production build", () => {
  test("carries none of a developer's local data: no file under .data/ is traced into the server", () => {
    // next build lists, per server entry, the files a deployment must ship with it (*.nft.json).
    // The embedded database and the development AUTH_SECRET live under .data/ (e2e/serve.ts makes
    // sure the secret exists before it builds); neither may travel with a deployment.
    const serverDir = path.join(process.cwd(), ".next", "server");
    const dataDir = `${path.join(process.cwd(), ".data")}${path.sep}`;
    const traces = fs
      .readdirSync(serverDir, { recursive: true, encoding: "utf8" })
      .filter((file) => file.endsWith(".nft.json"))
      .map((file) => path.join(serverDir, file));
    expect(traces.length, "the build wrote its trace files").toBeGreaterThan(10);
    const shipped = traces.flatMap((trace) => {
      const { files } = JSON.parse(fs.readFileSync(trace, "utf8")) as { files: string[] };
      return files.map((file) => path.resolve(path.dirname(trace), file)).filter((file) => file.startsWith(dataDir));
    });
    expect([...new Set(shipped)]).toEqual([]);
  });
});

test.describe("starting in production", () => {
  test("refuses to start without AUTH_SECRET, and says how to make one", async () => {
    test.setTimeout(60_000);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "points-nosecret-"));
    const env: NodeJS.ProcessEnv = { ...process.env, NODE_ENV: "production", PGLITE_DIR: path.join(dir, "pglite") };
    for (const name of ["AUTH_SECRET", "NEXTAUTH_SECRET", "DATABASE_URL", "TEST_DATABASE_URL"]) delete env[name];
    const child = spawn(process.execPath, [path.join(process.cwd(), "scripts", "next.mjs"), "start", "-p", "3190"], { env });
    let output = "";
    child.stdout.on("data", (chunk) => {
      output += chunk;
    });
    child.stderr.on("data", (chunk) => {
      output += chunk;
    });
    const code = await new Promise<number | null>((resolve) => {
      const timer = setTimeout(() => {
        child.kill("SIGKILL");
        resolve(null);
      }, 45_000);
      child.on("exit", (exitCode) => {
        clearTimeout(timer);
        resolve(exitCode);
      });
    });
    fs.rmSync(dir, { recursive: true, force: true });
    expect(code, output).not.toBe(0);
    expect(code, output).not.toBeNull();
    expect(output).toContain("AUTH_SECRET is not set");
    expect(output).toContain("openssl rand -base64 32");
  });
});
