/**
 * The process's life after startup: whether it is shutting down, what work is in flight, the
 * background loops and what closes last, and the shutdown that drains them.
 *
 * The state lives on globalThis under a registered symbol, not in this module: `next start` bundles
 * the app's code (a route handler and instrumentation may each hold their own copy of this module),
 * and scripts/graceful-shutdown.mjs, which owns the signals and the HTTP server, is plain Node. All of
 * them see the one state.
 */

import { log } from "@/lib/observability/log";

const STATE = Symbol.for("points.lifecycle");

interface BackgroundLoop {
  name: string;
  stop(): Promise<void>;
}

interface LifecycleState {
  shuttingDown: boolean;
  inFlight: number;
  /** Told whenever in-flight work ends, so a drain waiting for zero wakes up. */
  settledListeners: Set<() => void>;
  loops: Set<BackgroundLoop>;
  /** Run last, once nothing else runs: the database pool. */
  closers: Array<{ name: string; close: () => Promise<void> }>;
  shutdown?: Promise<ShutdownReport>;
}

function state(): LifecycleState {
  const holder = globalThis as unknown as { [STATE]?: LifecycleState };
  holder[STATE] ??= { shuttingDown: false, inFlight: 0, settledListeners: new Set(), loops: new Set(), closers: [] };
  return holder[STATE];
}

/** True from the moment a shutdown begins: readiness answers 503 and background loops stop. */
export function isShuttingDown(): boolean {
  return state().shuttingDown;
}

/** Purchases (and other tracked work) running now. */
export function inFlightCount(): number {
  return state().inFlight;
}

/**
 * Runs work that a shutdown waits for (up to its deadline): a purchase, which once started should
 * end with an answer rather than a dropped connection and a lease to wait out.
 */
export async function trackInFlight<T>(work: () => Promise<T>): Promise<T> {
  const current = state();
  current.inFlight += 1;
  try {
    return await work();
  } finally {
    current.inFlight -= 1;
    for (const listener of current.settledListeners) listener();
  }
}

/**
 * Runs `run` every `everyMs` (never two runs at once) until a shutdown, which lets the current run
 * end (`run` is told to stop between items by its `stopping` argument) and starts no other.
 */
export function startBackgroundLoop(
  name: string,
  everyMs: number,
  run: (stopping: () => boolean) => Promise<unknown>,
  /** What the loop started and did not wait for (a sender's requests in flight), awaited when it stops. */
  drain?: () => Promise<void>,
): void {
  const current = state();
  if (current.shuttingDown) return;
  let running: Promise<unknown> | null = null;
  const timer = setInterval(() => {
    if (running || current.shuttingDown) return;
    running = run(isShuttingDown)
      .catch((error: unknown) => {
        log().error(
          { event: "background_failed", task: name },
          `${name} failed: ${error instanceof Error ? error.message : String(error)}`,
        );
      })
      .finally(() => {
        running = null;
      });
  }, everyMs);
  timer.unref();
  current.loops.add({
    name,
    stop: async () => {
      clearInterval(timer);
      await running;
      await drain?.();
    },
  });
}

/** Registers something to close once the drain is over (the database pool), in registration order. */
export function onClose(name: string, close: () => Promise<void>): void {
  state().closers.push({ name, close });
}

/** What an HTTP server must offer a shutdown: lib/server/http-servers.ts adapts node's http.Server. */
export interface DrainableServer {
  /** From now on every answer, those already under way included, says `Connection: close`. */
  endKeepAlive(): void;
  /**
   * Stops accepting connections once those already queued are accepted, and closes kept-alive ones
   * that are idle; calls back once every open connection has ended.
   */
  close(callback?: (error?: Error) => void): unknown;
  /** Stops accepting at once if it has not yet, and cuts every open connection. */
  closeAllConnections(): void;
}

export interface ShutdownOptions {
  /**
   * How long the servers keep accepting connections (and serving them) after readiness turns 503,
   * so that a load balancer sees the 503 and stops sending before the listener closes. 0: at once.
   */
  delayMs?: number;
  /** How long in-flight work may take to finish once the listener has closed; with the delay, shorter than a purchase's lease. */
  drainMs: number;
  servers: DrainableServer[];
  log?: (line: string) => void;
}

export interface ShutdownReport {
  /** Tracked work still running at the deadline: those purchases are left to a retry (or the reconciler) once their lease runs out. */
  abandoned: number;
  /** Whether every connection ended by itself before the deadline. */
  drained: boolean;
}

/**
 * The clean shutdown: readiness turns 503 and every answer says `Connection: close` at once, and
 * background loops stop between items; the servers keep accepting and serving connections for the
 * delay; then they stop accepting (once the connections already queued are taken), idle connections
 * close, and in-flight work and open requests get until the drain deadline; then whatever
 * connections remain are cut and the database closes. Called twice, it returns the first call's
 * promise.
 */
export function shutdown(options: ShutdownOptions): Promise<ShutdownReport> {
  const current = state();
  current.shutdown ??= runShutdown(current, options);
  return current.shutdown;
}

async function runShutdown(
  current: LifecycleState,
  { delayMs = 0, drainMs, servers, log: write = (line) => log().info(line) }: ShutdownOptions,
): Promise<ShutdownReport> {
  current.shuttingDown = true;
  for (const server of servers) server.endKeepAlive();
  const loopsStopped = Promise.all([...current.loops].map((loop) => loop.stop()));
  if (delayMs > 0) {
    write(
      `Shutting down: readiness answers 503; still accepting connections for ${delayMs / 1000} s, then draining for up to ${drainMs / 1000} s (${current.inFlight} purchases in flight).`,
    );
    await new Promise((resolve) => setTimeout(resolve, delayMs));
  }
  const deadline = Date.now() + drainMs;
  write(
    `${delayMs > 0 ? "Delay over" : "Shutting down: readiness answers 503"}; closing the listener once the connections already queued are accepted; draining for up to ${drainMs / 1000} s (${current.inFlight} purchases in flight).`,
  );
  const serversClosed = Promise.all(
    servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))),
  );
  const drained = await withinDeadline(Promise.all([serversClosed, loopsStopped, idle(current)]), deadline);
  const abandoned = current.inFlight;
  if (!drained) {
    for (const server of servers) server.closeAllConnections();
    write(
      abandoned > 0
        ? `Drain deadline reached with ${abandoned} purchases in flight: each keeps its lease, and a retry with its reference (or the reconciler) settles it once the lease runs out.`
        : "Drain deadline reached: the remaining connections were closed.",
    );
  }
  for (const { name, close } of current.closers) {
    try {
      await close();
    } catch (error) {
      write(`Closing ${name} failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  write("Shutdown complete.");
  return { abandoned, drained };
}

function idle(current: LifecycleState): Promise<void> {
  return new Promise((resolve) => {
    const check = () => {
      if (current.inFlight > 0) return;
      current.settledListeners.delete(check);
      resolve();
    };
    current.settledListeners.add(check);
    check();
  });
}

async function withinDeadline(work: Promise<unknown>, deadline: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), Math.max(0, deadline - Date.now()));
  });
  try {
    return await Promise.race([work.then(() => true as const), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Forgets every loop, closer and flag: for tests, which run many lifecycles in one process. */
export function resetLifecycleForTests(): void {
  const holder = globalThis as unknown as { [STATE]?: LifecycleState };
  delete holder[STATE];
}
