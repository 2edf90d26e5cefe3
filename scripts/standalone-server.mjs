// The standalone server (`output: "standalone"`) as the Docker image runs it, with what
// scripts/next.mjs gives `npm start`: telemetry off, the client's socket address for per-address
// sign-in limits, exact paths under /v3, and the drain on SIGTERM. scripts/standalone-layout.mjs puts
// this file in the layout's scripts/ folder, beside the three hooks, and Next's server.js one folder up.
process.env.NEXT_TELEMETRY_DISABLED ??= "1";
if (process.env.NEXT_TELEMETRY_DISABLED === "0") delete process.env.NEXT_TELEMETRY_DISABLED;
await import(new URL("./socket-address.mjs", import.meta.url).href);
await import(new URL("./api-paths.mjs", import.meta.url).href);
await import(new URL("./graceful-shutdown.mjs", import.meta.url).href);
await import(new URL("../server.js", import.meta.url).href);
