import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { adoptHttpServers, connectionSettings } from "./http-servers";
import { resetLifecycleForTests, shutdown } from "./lifecycle";
import { drainDeadlineMs } from "./startup";

const SERVERS = Symbol.for("points.httpServers");
const registry = globalThis as unknown as { [SERVERS]?: http.Server[] };

afterEach(() => {
  delete registry[SERVERS];
  resetLifecycleForTests();
});

describe("connection settings", () => {
  it("keep idle connections 65 s, past a balancer's 60 s, and give headers one second more", () => {
    expect(connectionSettings({})).toEqual({ keepAliveMs: 65_000, headersTimeoutMs: 66_000 });
    expect(connectionSettings({ POINTS_KEEP_ALIVE_SECONDS: 350 })).toEqual({ keepAliveMs: 350_000, headersTimeoutMs: 351_000 });
  });

  it("refuse a headers timeout that is not longer than the keep-alive", () => {
    expect(() => connectionSettings({ POINTS_KEEP_ALIVE_SECONDS: 65, POINTS_HEADERS_TIMEOUT_SECONDS: 65 })).toThrow(
      /POINTS_HEADERS_TIMEOUT_SECONDS=65 must be longer than the keep-alive \(65 s\)/,
    );
  });
});

describe("the drain deadline", () => {
  it("is 25 s, or half a shorter lease, unless set", () => {
    expect(drainDeadlineMs(90_000, undefined)).toBe(25_000);
    expect(drainDeadlineMs(30_000, undefined)).toBe(15_000);
    expect(drainDeadlineMs(90_000, 60)).toBe(60_000);
  });

  it("is refused unless shorter than the lease", () => {
    expect(() => drainDeadlineMs(90_000, 90)).toThrow(/POINTS_DRAIN_SECONDS=90 must be shorter than a purchase's lease \(90 s/);
  });
});

interface Answer {
  connection: string | undefined;
  keepAlive: string | undefined;
}

describe("the servers npm start makes", () => {
  it("take the keep-alive, and say Connection: close once a shutdown has begun", async () => {
    let release = () => {};
    const server = http.createServer((request, response) => {
      if (request.url === "/slow") {
        release = () => response.end("slow");
      } else {
        response.end("fast");
      }
    });
    registry[SERVERS] = [server];
    const [adopted] = adoptHttpServers({ keepAliveMs: 7_000, headersTimeoutMs: 8_000 });
    expect([server.keepAliveTimeout, server.headersTimeout]).toEqual([7_000, 8_000]);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    const agent = new http.Agent({ keepAlive: true });
    const get = (pathname: string) =>
      new Promise<Answer>((resolve, reject) => {
        http
          .get({ host: "127.0.0.1", port, path: pathname, agent }, (response) => {
            response.resume();
            response.on("end", () => resolve({ connection: response.headers.connection, keepAlive: String(response.headers["keep-alive"] ?? "") || undefined }));
          })
          .on("error", reject);
      });
    try {
      expect(await get("/fast")).toEqual({ connection: "keep-alive", keepAlive: "timeout=7" });
      const slow = get("/slow");
      await new Promise((resolve) => setTimeout(resolve, 100));
      const done = shutdown({ drainMs: 5_000, servers: adopted ? [adopted] : [], log: () => {} });
      release();
      expect(await slow).toEqual({ connection: "close", keepAlive: undefined });
      await expect(done).resolves.toEqual({ abandoned: 0, drained: true });
      expect(server.listening).toBe(false);
    } finally {
      agent.destroy();
      server.close();
    }
  });
});
