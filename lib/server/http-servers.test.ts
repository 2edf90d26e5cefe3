import http from "node:http";
import net, { type AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { adoptHttpServers, connectionSettings } from "./http-servers";
import { resetLifecycleForTests, shutdown } from "./lifecycle";
import { shutdownTimings } from "./startup";

const SERVERS = Symbol.for("points.httpServers");
const registry = globalThis as unknown as { [SERVERS]?: http.Server[] };

afterEach(() => {
  delete registry[SERVERS];
  resetLifecycleForTests();
});

describe("connection settings", () => {
  it("keep idle connections 65 s, past a balancer's 60 s, and give headers one second more", () => {
    expect(connectionSettings({})).toEqual({ keepAliveMs: 65_000, headersTimeoutMs: 66_000 });
    expect(connectionSettings({ POINTS_KEEP_ALIVE_SECONDS: 350 })).toEqual({
      keepAliveMs: 350_000,
      headersTimeoutMs: 351_000,
    });
  });

  it("refuse a headers timeout that is not longer than the keep-alive", () => {
    expect(() => connectionSettings({ POINTS_KEEP_ALIVE_SECONDS: 65, POINTS_HEADERS_TIMEOUT_SECONDS: 65 })).toThrow(
      /POINTS_HEADERS_TIMEOUT_SECONDS=65 must be longer than the keep-alive \(65 s\)/,
    );
  });
});

describe("the shutdown's timings", () => {
  it("are a 5 s delay and a 20 s drain, or half a shorter lease, unless set", () => {
    expect(shutdownTimings(90_000, {})).toEqual({ delayMs: 5_000, drainMs: 20_000 });
    expect(shutdownTimings(30_000, {})).toEqual({ delayMs: 5_000, drainMs: 15_000 });
    expect(shutdownTimings(90_000, { POINTS_DRAIN_SECONDS: 60, POINTS_SHUTDOWN_DELAY_SECONDS: 0 })).toEqual({
      delayMs: 0,
      drainMs: 60_000,
    });
    expect(shutdownTimings(90_000, { POINTS_SHUTDOWN_DELAY_SECONDS: 15 })).toEqual({
      delayMs: 15_000,
      drainMs: 20_000,
    });
  });

  it("are refused unless the drain, and the delay with it, are shorter than the lease", () => {
    expect(() => shutdownTimings(90_000, { POINTS_DRAIN_SECONDS: 90, POINTS_SHUTDOWN_DELAY_SECONDS: 0 })).toThrow(
      /POINTS_DRAIN_SECONDS=90 must be shorter than a purchase's lease \(90 s/,
    );
    expect(() => shutdownTimings(90_000, { POINTS_DRAIN_SECONDS: 60, POINTS_SHUTDOWN_DELAY_SECONDS: 30 })).toThrow(
      /POINTS_SHUTDOWN_DELAY_SECONDS=30 plus the drain \(60 s, POINTS_DRAIN_SECONDS\) must be shorter than a purchase's lease \(90 s/,
    );
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
            response.on("end", () =>
              resolve({
                connection: response.headers.connection,
                keepAlive: String(response.headers["keep-alive"] ?? "") || undefined,
              }),
            );
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

  it("keep accepting and serving through the delay, each answer ending its connection, then refuse new ones", async () => {
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
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    const kept = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const fresh = new http.Agent({ keepAlive: true });
    const get = (pathname: string, agent: http.Agent) =>
      new Promise<Answer>((resolve, reject) => {
        http
          .get({ host: "127.0.0.1", port, path: pathname, agent }, (response) => {
            response.resume();
            response.on("end", () =>
              resolve({
                connection: response.headers.connection,
                keepAlive: String(response.headers["keep-alive"] ?? "") || undefined,
              }),
            );
          })
          .on("error", reject);
      });
    const connect = () =>
      new Promise<string>((resolve) => {
        const socket = net.connect(port, "127.0.0.1");
        socket.once("connect", () => {
          socket.destroy();
          resolve("connected");
        });
        socket.once("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? "error"));
      });
    try {
      // A kept-alive connection left idle, and a request in flight on another, when the signal comes.
      expect(await get("/fast", kept)).toEqual({ connection: "keep-alive", keepAlive: "timeout=7" });
      const slow = get("/slow", fresh);
      await new Promise((resolve) => setTimeout(resolve, 50));
      const done = shutdown({ delayMs: 400, drainMs: 5_000, servers: adopted ? [adopted] : [], log: () => {} });

      // During the delay: the idle connection is still there and served, as is a new one; every answer ends its connection.
      expect(await get("/fast", kept)).toEqual({ connection: "close", keepAlive: undefined });
      expect(await get("/fast", fresh)).toEqual({ connection: "close", keepAlive: undefined });
      release();
      expect(await slow).toEqual({ connection: "close", keepAlive: undefined });
      expect(server.listening).toBe(true);

      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(server.listening).toBe(false);
      expect(await connect()).toBe("ECONNREFUSED");
      await expect(done).resolves.toEqual({ abandoned: 0, drained: true });
    } finally {
      kept.destroy();
      fresh.destroy();
      server.close();
    }
  });

  it("take every connection the kernel queued before the listener closes: a busy server resets none", async () => {
    // Each answer holds the event loop, as a loaded server's work does: node takes about one queued connection per turn.
    const server = http.createServer((_request, response) => {
      const until = performance.now() + 20;
      while (performance.now() < until) {}
      response.end("done");
    });
    registry[SERVERS] = [server];
    const [adopted] = adoptHttpServers({ keepAliveMs: 7_000, headersTimeoutMs: 8_000 });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    const agent = new http.Agent({ keepAlive: true });
    try {
      const outcomes = Array.from(
        { length: 40 },
        () =>
          new Promise<string>((resolve) => {
            http
              .get({ host: "127.0.0.1", port, path: "/", agent }, (response) => {
                response.resume();
                response.on("end", () => resolve(`${response.statusCode} ${response.headers.connection}`));
              })
              .on("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
          }),
      );
      await new Promise((resolve) => setTimeout(resolve, 60));
      const done = shutdown({ delayMs: 0, drainMs: 10_000, servers: adopted ? [adopted] : [], log: () => {} });
      const answers = await Promise.all(outcomes);
      expect(answers.filter((answer) => !answer.startsWith("200 "))).toEqual([]);
      await expect(done).resolves.toEqual({ abandoned: 0, drained: true });
      expect(server.listening).toBe(false);
    } finally {
      agent.destroy();
      server.close();
    }
  });
});
