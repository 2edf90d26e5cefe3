// The Next.js CLI with this project's defaults, for `npm run dev`, `build` and `start`.
//
// A payments service sends no usage data to a third party: Next.js telemetry is off unless the
// environment says otherwise (NEXT_TELEMETRY_DISABLED=0 turns it back on). It has to be set before
// the CLI starts, which reads it (and prints its notice) before any .env file or next.config.ts is
// loaded. Same process, so Ctrl-C reaches Next.js exactly as it would without this file.
process.env.NEXT_TELEMETRY_DISABLED ??= "1";
if (process.env.NEXT_TELEMETRY_DISABLED === "0") delete process.env.NEXT_TELEMETRY_DISABLED;
// The client's socket address for per-address sign-in limits (scripts/socket-address.mjs): in this
// process for `next start`, and through NODE_OPTIONS in the server process `next dev` forks.
const socketAddress = new URL("./socket-address.mjs", import.meta.url).href;
// Exact paths under /v3, answered in the API's envelope whatever Next.js would do first (scripts/api-paths.mjs).
const apiPaths = new URL("./api-paths.mjs", import.meta.url).href;
// The startup banner without the entry for next.config.ts's deliberate cache setting (scripts/next-banner.mjs).
const banner = new URL("./next-banner.mjs", import.meta.url).href;
await import(socketAddress);
await import(apiPaths);
await import(banner);
process.env.NODE_OPTIONS =
  `${process.env.NODE_OPTIONS ?? ""} --import="${socketAddress}" --import="${apiPaths}" --import="${banner}"`.trim();
// `next start` drains and exits 0 on SIGTERM (scripts/graceful-shutdown.mjs); `next dev` keeps Next's own handling.
if (process.argv[2] === "start") {
  await import(new URL("./graceful-shutdown.mjs", import.meta.url).href);
  // next.config.ts builds the standalone server for the Docker image as well, and `next start` then
  // warns that it "does not work" and to run .next/standalone/server.js. It does work (the build is
  // complete), and that bare server.js would lack the hooks above and the static files: that one
  // line is left out. The image's entry is scripts/standalone-server.mjs (README, "Deploying").
  const warn = console.warn;
  console.warn = (...args) => {
    if (typeof args[0] === "string" && args[0].includes('"next start" does not work with "output: standalone"')) return;
    warn.apply(console, args);
  };
}
await import("next/dist/bin/next");
