// `next start`'s signals, handled by the app rather than by Next.js. Next's own handler closes the
// server, waits for open requests without a deadline and exits 143; issue 17 asks for a drain with a
// deadline shorter than a purchase's lease, background loops stopped, the database closed and exit 0.
// This file keeps every HTTP server the process makes where lib/server/http-servers.ts finds it, and
// on SIGTERM (or SIGINT) runs the shutdown the app registered at startup (lib/server/startup.ts),
// telling it which signal came: SIGTERM keeps the listener open for POINTS_SHUTDOWN_DELAY_SECONDS
// first, SIGINT (Ctrl-C) does not.
import http from "node:http";

const SERVERS = Symbol.for("points.httpServers");
const SHUTDOWN = Symbol.for("points.shutdown");

if (!globalThis[SERVERS]) {
  globalThis[SERVERS] = [];
  // Read by Next.js's start-server when it starts listening: it then installs no handler of its own.
  process.env.NEXT_MANUAL_SIG_HANDLE = "true";
  const createServer = http.createServer;
  http.createServer = function createServerKept(...args) {
    const server = createServer.apply(this, args);
    globalThis[SERVERS].push(server);
    return server;
  };

  let stopping = false;
  const onSignal = (signal) => {
    // Signals come twice as often as not (a shell, npm or a supervisor each passing one on): the
    // drain already under way goes on. SIGKILL is the way to stop without it.
    if (stopping) return;
    stopping = true;
    const shutdown = globalThis[SHUTDOWN];
    // Before the app has started there is nothing to drain but the listening socket.
    const done = shutdown ? shutdown(signal) : closeServers();
    done.then(
      () => process.exit(0),
      (error) => {
        console.error("Shutdown failed:", error instanceof Error ? error.message : error);
        process.exit(1);
      },
    );
  };
  process.on("SIGTERM", onSignal);
  process.on("SIGINT", onSignal);
  watchNpm(onSignal);
}

/**
 * Under `npm start` the server's parent is the shell npm ran the script in. An orchestrator's
 * SIGTERM reaches npm, which passes it to that shell, which exits without passing it on: the server
 * would be left serving, orphaned. So when npm started it (npm sets npm_lifecycle_event), a parent
 * that goes away is taken as the SIGTERM that did not arrive, and the server drains as for one.
 */
function watchNpm(onSignal) {
  if (!process.env.npm_lifecycle_event) return;
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    onSignal("SIGTERM");
  }, 500);
  timer.unref();
}

function closeServers() {
  return Promise.all(
    globalThis[SERVERS].map(
      (server) =>
        new Promise((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        }),
    ),
  );
}
