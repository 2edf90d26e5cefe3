import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { expect, test } from "../fixtures";
import { codeBlockAfter, runBlock, shellBlockAfter } from "../readme";

/*
 * What a load balancer and an orchestrator see of an instance (issue 17): /healthz says the process
 * is up, /readyz whether to send it traffic, and a kept-alive connection outlives the balancer's
 * idle timeout. Against the suite's production server on its database (Postgres in CI).
 */

const journal = JSON.parse(fs.readFileSync(path.join(process.cwd(), "drizzle", "meta", "_journal.json"), "utf8")) as {
  entries: { tag: string }[];
};
const latestMigration = journal.entries.at(-1)?.tag;

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** The local port of the connection it came on: the same port means the same connection. */
  localPort: number | undefined;
  reusedSocket: boolean;
}

function get(baseURL: string, pathname: string, agent?: http.Agent): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = http.get(new URL(pathname, baseURL), { agent }, (response) => {
      let body = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => {
        body += chunk;
      });
      response.on("end", () =>
        resolve({
          status: response.statusCode ?? 0,
          headers: response.headers,
          body,
          localPort: request.socket?.localPort,
          reusedSocket: request.reusedSocket,
        }),
      );
    });
    request.on("error", reject);
  });
}

test.describe("health and readiness", () => {
  test("GET /healthz answers 200 at once, without a key, and is never cached", async ({ baseURL }) => {
    const url = baseURL ?? "";
    await get(url, "/healthz");
    const started = performance.now();
    const answer = await get(url, "/healthz");
    expect(performance.now() - started).toBeLessThan(500);
    expect(answer.status).toBe(200);
    expect(answer.headers["cache-control"]).toBe("no-store");
    expect(answer.headers["content-type"]).toMatch(/^application\/json/);
    expect(JSON.parse(answer.body)).toEqual({ status: "ok" });
  });

  test("GET /readyz answers 200 with the database, its migrations and the billing provider", async ({
    baseURL,
    fx,
  }) => {
    const answer = await get(baseURL ?? "", "/readyz");
    expect(answer.status).toBe(200);
    expect(answer.headers["cache-control"]).toBe("no-store");
    const report = JSON.parse(answer.body);
    expect(report).toMatchObject({
      status: "ready",
      database: { status: "ok" },
      migrations: { status: "current", latest: latestMigration, applied: latestMigration },
      billing: { provider: fx.stripe ? "stripe" : "simulated", status: "reachable" },
    });
    // Nothing about where the database is or which key the provider takes.
    expect(answer.body).not.toMatch(/postgres:|pglite|sk_test|whsec_|127\.0\.0\.1/i);
  });

  test("a kept-alive connection is still open, and reused, after 6 s idle", async ({ baseURL }) => {
    test.setTimeout(30_000);
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const first = await get(baseURL ?? "", "/healthz", agent);
      // Long enough for the balancer in front: the default outlasts the common 60 s idle timeout.
      expect(first.headers["keep-alive"]).toBe("timeout=65");
      expect(first.headers.connection).toBe("keep-alive");
      // Node's own default would have closed it after 5 s.
      await new Promise((resolve) => setTimeout(resolve, 6_000));
      const second = await get(baseURL ?? "", "/healthz", agent);
      expect(second.status).toBe(200);
      expect(second.reusedSocket).toBe(true);
      expect(second.localPort).toBe(first.localPort);
    } finally {
      agent.destroy();
    }
  });

  test("docs/operations.md's health and readiness calls answer as written", async ({ baseURL }) => {
    const block = shellBlockAfter("docs/operations.md", "For a load balancer or an orchestrator");
    expect(runBlock(block, baseURL ?? "", {})).toEqual([200, 200]);
  });

  test("docs/operations.md's /readyz sample has the fields the app answers, and names its newest migration", async ({
    baseURL,
  }) => {
    const sample = JSON.parse(
      codeBlockAfter("docs/operations.md", "`/readyz` is 200 when the database answers", "json"),
    );
    const answer = JSON.parse((await get(baseURL ?? "", "/readyz")).body);
    const shape = (report: Record<string, unknown>) =>
      Object.fromEntries(
        Object.entries(report).map(([key, value]) => [
          key,
          typeof value === "object" && value ? Object.keys(value).sort() : typeof value,
        ]),
      );
    expect(shape(sample)).toEqual(shape(answer));
    expect(sample.migrations).toEqual(answer.migrations);
  });
});
