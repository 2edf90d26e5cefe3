import { afterEach, describe, expect, it } from "vitest";
import {
  type DrainableServer,
  inFlightCount,
  isShuttingDown,
  onClose,
  resetLifecycleForTests,
  shutdown,
  startBackgroundLoop,
  trackInFlight,
} from "./lifecycle";

afterEach(() => {
  resetLifecycleForTests();
});

/** A server whose open connections end when the test says so. */
function fakeServer(events: string[]) {
  let closed: (() => void) | undefined;
  let connectionsOpen = true;
  const server: DrainableServer = {
    endKeepAlive: () => events.push("keep-alive ended"),
    close(callback) {
      events.push("stopped accepting");
      closed = () => callback?.();
      if (!connectionsOpen) closed();
    },
    closeAllConnections: () => {
      events.push("all connections cut");
      connectionsOpen = false;
      closed?.();
    },
  };
  return {
    server,
    connectionsEnd: () => {
      connectionsOpen = false;
      closed?.();
    },
  };
}

function deferred() {
  let resolve: () => void = () => {};
  const promise = new Promise<void>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

const quiet = () => {};

describe("shutdown", () => {
  it("stops accepting at once, lets purchases in flight finish, then closes the database", async () => {
    const events: string[] = [];
    const { server, connectionsEnd } = fakeServer(events);
    onClose("the database", async () => {
      events.push("database closed");
    });
    const purchase = deferred();
    const answered = trackInFlight(async () => {
      await purchase.promise;
      events.push("purchase answered");
      return "paid";
    });
    expect(inFlightCount()).toBe(1);

    const done = shutdown({ drainMs: 5_000, servers: [server], log: quiet });
    expect(isShuttingDown()).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(events).toEqual(["keep-alive ended", "stopped accepting"]);

    purchase.resolve();
    await expect(answered).resolves.toBe("paid");
    connectionsEnd();
    await expect(done).resolves.toEqual({ abandoned: 0, drained: true });
    expect(events).toEqual(["keep-alive ended", "stopped accepting", "purchase answered", "database closed"]);
  });

  it("with a delay, is not ready at once but keeps accepting until the delay is over, then drains", async () => {
    const events: string[] = [];
    const lines: string[] = [];
    const { server, connectionsEnd } = fakeServer(events);
    const started = Date.now();
    const done = shutdown({ delayMs: 300, drainMs: 5_000, servers: [server], log: (line) => lines.push(line) });
    expect(isShuttingDown()).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(events).toEqual(["keep-alive ended"]);
    expect(lines).toEqual([
      expect.stringContaining("still accepting connections for 0.3 s, then draining for up to 5 s"),
    ]);

    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(events).toEqual(["keep-alive ended", "stopped accepting"]);
    connectionsEnd();
    await expect(done).resolves.toEqual({ abandoned: 0, drained: true });
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
  });

  it("cuts what is left at the deadline, says how many purchases it left, and still closes the database", async () => {
    const events: string[] = [];
    const lines: string[] = [];
    const { server } = fakeServer(events);
    onClose("the database", async () => {
      events.push("database closed");
    });
    void trackInFlight(() => new Promise(() => {}));
    const started = Date.now();
    const report = await shutdown({ drainMs: 300, servers: [server], log: (line) => lines.push(line) });
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    expect(report).toEqual({ abandoned: 1, drained: false });
    expect(events).toEqual(["keep-alive ended", "stopped accepting", "all connections cut", "database closed"]);
    expect(lines.join("\n")).toContain("1 purchases in flight");
  });

  it("runs once however many signals arrive", async () => {
    let closes = 0;
    onClose("the database", async () => {
      closes += 1;
    });
    const first = shutdown({ drainMs: 100, servers: [], log: quiet });
    const second = shutdown({ drainMs: 100, servers: [], log: quiet });
    expect(second).toBe(first);
    await first;
    expect(closes).toBe(1);
  });

  it("waits for a background loop's current run, which is told to stop, and starts no other", async () => {
    const run = deferred();
    let runs = 0;
    let toldToStop = false;
    startBackgroundLoop("test loop", 10, async (stopping) => {
      runs += 1;
      await run.promise;
      toldToStop = stopping();
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(runs).toBe(1);
    let finished = false;
    const done = shutdown({ drainMs: 5_000, servers: [], log: quiet }).then(() => {
      finished = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(finished).toBe(false);
    run.resolve();
    await done;
    expect(toldToStop).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(runs).toBe(1);
  });
});
