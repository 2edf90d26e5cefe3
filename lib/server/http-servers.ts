import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { Env } from "@/lib/env";
import { type DrainableServer, isShuttingDown } from "./lifecycle";

/** Where scripts/graceful-shutdown.mjs keeps every HTTP server `next start` made in this process. */
const SERVERS = Symbol.for("points.httpServers");

/**
 * A load balancer keeps idle connections to the app open for its own idle timeout (60 s on the
 * common ones) and reuses them; if the app closes one first, a request sent on it at that moment
 * fails as a 502. So the app keeps them a little longer than that.
 */
export const DEFAULT_KEEP_ALIVE_SECONDS = 65;

export interface ConnectionSettings {
  keepAliveMs: number;
  /** Node closes a connection whose request headers take longer than this; it must exceed the keep-alive. */
  headersTimeoutMs: number;
}

/** POINTS_KEEP_ALIVE_SECONDS and POINTS_HEADERS_TIMEOUT_SECONDS, or why they cannot work together. */
export function connectionSettings(
  values: Pick<Env, "POINTS_KEEP_ALIVE_SECONDS" | "POINTS_HEADERS_TIMEOUT_SECONDS">,
): ConnectionSettings {
  const keepAliveSeconds = values.POINTS_KEEP_ALIVE_SECONDS ?? DEFAULT_KEEP_ALIVE_SECONDS;
  const headersSeconds = values.POINTS_HEADERS_TIMEOUT_SECONDS ?? keepAliveSeconds + 1;
  if (headersSeconds <= keepAliveSeconds) {
    throw new Error(
      `POINTS_HEADERS_TIMEOUT_SECONDS=${headersSeconds} must be longer than the keep-alive (${keepAliveSeconds} s), ` +
        "or a reused connection can be cut while its next request is on the way.",
    );
  }
  return { keepAliveMs: keepAliveSeconds * 1000, headersTimeoutMs: headersSeconds * 1000 };
}

/**
 * The HTTP servers of this process, set up for life behind a proxy (the keep-alive and headers
 * timeouts) and for a clean shutdown: from the moment it begins, every answer (those under way
 * included) says `Connection: close`, and the connection ends once it is sent, so a client with a
 * kept-alive connection goes elsewhere for its next request, and no connection is left idle for the
 * listener's close to cut. None when the app runs without scripts/next.mjs (tests, a bare `next start`).
 */
export function adoptHttpServers(settings: ConnectionSettings): DrainableServer[] {
  const servers = (globalThis as unknown as { [SERVERS]?: Server[] })[SERVERS] ?? [];
  return servers.map((server) => adopt(server, settings));
}

/**
 * After the last accepted connection, how long the listener must see none before it closes: the
 * balancer has stopped sending, and what the kernel still queued has been taken.
 */
export const LISTENER_QUIET_MS = 100;

function adopt(server: Server, settings: ConnectionSettings): DrainableServer {
  server.keepAliveTimeout = settings.keepAliveMs;
  server.headersTimeout = settings.headersTimeoutMs;
  // Node requires requestTimeout (whole request) to be at least the headers timeout.
  if (server.requestTimeout > 0 && server.requestTimeout < settings.headersTimeoutMs)
    server.requestTimeout = settings.headersTimeoutMs;
  const answering = new Set<ServerResponse>();
  server.prependListener("request", (_request: IncomingMessage, response: ServerResponse) => {
    if (isShuttingDown()) response.shouldKeepAlive = false;
    answering.add(response);
    response.once("close", () => answering.delete(response));
  });
  const accepts = { count: 0, lastAt: performance.now() };
  server.on("connection", () => {
    accepts.count += 1;
    accepts.lastAt = performance.now();
  });
  let closeNow: (() => void) | null = null;
  return {
    endKeepAlive() {
      for (const response of answering) if (!response.headersSent) response.shouldKeepAlive = false;
    },
    close(callback) {
      let closed = false;
      // node's close() also closes the kept-alive connections that are idle.
      closeNow = () => {
        if (closed) return;
        closed = true;
        server.close(callback);
      };
      whenAcceptQueueEmpty(accepts, closeNow);
    },
    closeAllConnections() {
      closeNow?.();
      server.closeAllConnections();
    },
  };
}

/**
 * Calls `then` once the kernel holds no connection for this server that it has not accepted yet:
 * none was accepted for LISTENER_QUIET_MS, nor in the turn of the event loop after. Node takes the
 * kernel's queued connections about one per turn, so a busy server may hold dozens there for a
 * second or more, and closing the listener resets each of them (ECONNRESET at the client).
 */
function whenAcceptQueueEmpty(accepts: { count: number; lastAt: number }, then: () => void): void {
  const check = () => {
    const wait = accepts.lastAt + LISTENER_QUIET_MS - performance.now();
    if (wait > 0) {
      setTimeout(check, wait);
      return;
    }
    const seen = accepts.count;
    // An immediate runs after the loop's next poll for I/O, which accepts a queued connection if there is one.
    setImmediate(() => (accepts.count === seen ? then() : check()));
  };
  check();
}
