import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { readFixtures } from "../fixtures";
import { startProduction } from "../production-server";

/*
 * What a production build says about itself to a browser, what it refuses to start without, and
 * how it refuses a server action sent from another site.
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

test.describe("a server action sent from another site", () => {
  // Issue 38, item 5b: Next refuses it (CSRF) with a bare 500 and an error in the log; proxy.ts answers
  // first, by the same rule (lib/dashboard/form-origin.ts). The action's id need not exist: the
  // Origin is checked before Next looks the action up.
  const action = `7f${"0".repeat(40)}`;
  const words = "This form was sent from another site, so it was refused.";
  const fetchAction = (origin: string) => ({
    headers: { "Next-Action": action, Origin: origin, Accept: "text/x-component", "Content-Type": "text/plain" },
    data: "[]",
    maxRedirects: 0,
  });

  test("answers 403 in words, not 500, and is logged as a refusal, not an error", async ({ request }) => {
    const response = await request.post("/dashboard/settings", fetchAction("https://evil.example"));
    expect(response.status()).toBe(403);
    expect(response.headers()["content-type"]).toBe("text/plain; charset=utf-8");
    expect(await response.text()).toContain(words);

    const { observability } = readFixtures();
    const lines = () =>
      fs
        .readFileSync(observability?.logFile ?? "", "utf8")
        .split("\n")
        .filter((line) => line.startsWith("{"))
        .map((line) => JSON.parse(line) as { level: string; event?: string; path?: string; origin?: string });
    await expect
      .poll(() =>
        lines().find((line) => line.event === "foreign_action_refused" && line.origin === "https://evil.example"),
      )
      .toMatchObject({ level: "warn", path: "/dashboard/settings" });
    // Next's own refusal (console.error, then a 500) never ran.
    expect(fs.readFileSync(observability?.logFile ?? "", "utf8")).not.toContain("Aborting the action");
  });

  test("is refused on any page it is posted to, and as a form sent without the page's script", async ({ request }) => {
    const elsewhere = await request.post("/", fetchAction("https://evil.example"));
    expect(elsewhere.status()).toBe(403);
    expect(await elsewhere.text()).toContain(words);
    const form = await request.post("/dashboard/settings", {
      headers: { Origin: "https://evil.example" },
      multipart: { [`$ACTION_ID_${action}`]: "" },
      maxRedirects: 0,
    });
    expect(form.status()).toBe(403);
    expect(await form.text()).toContain(words);
  });

  test("from this site it goes on to Next (here, signed out, to the sign-in page)", async ({ request, baseURL }) => {
    const origin = new URL(baseURL ?? "").origin;
    const response = await request.post("/dashboard/settings", fetchAction(origin));
    expect(response.status()).toBe(307);
    expect(response.headers().location).toContain("/signin");
  });
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
    const server = startProduction(90, { AUTH_SECRET: undefined });
    const code = await server.exited(45_000);
    const output = server.output();
    await server.stop();
    expect(code, output).not.toBe(0);
    expect(code, output).not.toBeNull();
    expect(output).toContain("AUTH_SECRET is not set");
    expect(output).toContain("openssl rand -base64 32");
  });

  /** A listener that records every request it gets, standing where STRIPE_API_URL points. */
  async function listener(): Promise<{ url: string; requests: string[]; close(): Promise<void> }> {
    const requests: string[] = [];
    const server = http.createServer((request, response) => {
      requests.push(`${request.method} ${request.url} ${request.headers.authorization ?? ""}`);
      response.writeHead(500).end();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    return {
      url: `http://127.0.0.1:${port}`,
      requests,
      close: () => new Promise((resolve) => server.close(() => resolve())),
    };
  }

  test("refuses to start with a live Stripe key sent anywhere but Stripe, and sends it nowhere", async () => {
    test.setTimeout(60_000);
    const target = await listener();
    const liveKey = `sk_live_${"x".repeat(24)}`;
    const server = startProduction(91, {
      STRIPE_SECRET_KEY: liveKey,
      STRIPE_API_URL: target.url,
      STRIPE_WEBHOOK_SECRET: "whsec_x",
    });
    const code = await server.exited(45_000);
    const output = server.output();
    await server.stop();
    await target.close();
    expect(code, output).not.toBeNull();
    expect(code, output).not.toBe(0);
    expect(output).toContain(
      `A live STRIPE_SECRET_KEY is sent only to Stripe's own API (https://api.stripe.com), not to STRIPE_API_URL=${target.url}`,
    );
    expect(output).not.toContain(liveKey);
    expect(target.requests).toEqual([]);
  });

  test("with a test key, prints the Stripe API it sends the key to", async () => {
    test.setTimeout(120_000);
    const target = await listener();
    const server = startProduction(92, { STRIPE_SECRET_KEY: `sk_test_${"y".repeat(24)}`, STRIPE_API_URL: target.url });
    try {
      await server.ready();
      expect(server.output()).toContain(`billing:  stripe, API ${target.url} (a Stripe-compatible test server)`);
      // The startup check of the key met only 500s: said once, as no answer rather than a refused key.
      await expect
        .poll(() => server.output(), { timeout: 15_000 })
        .toContain("billing: Stripe did not answer the check of the API key");
      expect(server.output()).not.toContain("refused the API key");
    } finally {
      await server.stop();
      await target.close();
    }
  });
});
