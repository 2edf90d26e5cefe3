// The Next.js CLI with this project's defaults, for `npm run dev`, `build` and `start`.
//
// A payments service sends no usage data to a third party: Next.js telemetry is off unless the
// environment says otherwise (NEXT_TELEMETRY_DISABLED=0 turns it back on). It has to be set before
// the CLI starts, which reads it (and prints its notice) before any .env file or next.config.ts is
// loaded. Same process, so Ctrl-C reaches Next.js exactly as it would without this file.
process.env.NEXT_TELEMETRY_DISABLED ??= "1";
if (process.env.NEXT_TELEMETRY_DISABLED === "0") delete process.env.NEXT_TELEMETRY_DISABLED;
await import("next/dist/bin/next");
