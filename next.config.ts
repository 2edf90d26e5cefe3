import type { NextConfig } from "next";

const nextConfig: NextConfig = {
  poweredByHeader: false,
  // Answers are small JSON and compact pages: gzip in the Node process costs more CPU than it saves.
  // A reverse proxy in front compresses, where one is wanted.
  compress: false,
  reactStrictMode: true,
  experimental: {
    // Every `next dev` compiles from a clean state instead of restoring Turbopack's cache from
    // .next/dev. Restarts sent a user into a reload loop (each page's HMR subscription opened with a
    // "restart" update, then "HMR hash mismatch"; /signin reloaded 55 times in 4 s) that a first start
    // never showed. Of what a restart has and a first start lacks, the restored cache is what is left
    // once .data/ is ruled out (the embedded database's writes reach no watcher): without it, every
    // start is a first start. It costs a few seconds per start; e2e/dev/restart.spec.ts holds to it.
    turbopackFileSystemCacheForDev: false,
  },
  // PGlite ships wasm and postgres.js opens sockets: both stay plain Node modules, not bundled.
  serverExternalPackages: ["@electric-sql/pglite", "postgres"],
  async headers() {
    const production = process.env.NODE_ENV === "production";
    return [
      {
        source: "/:path*",
        headers: [
          // No page of this app may be framed: the dashboard's buttons buy Points and make API keys
          // (clickjacking). The CSP form is the standard one; X-Frame-Options covers older browsers.
          { key: "Content-Security-Policy", value: "frame-ancestors 'none'; object-src 'none'; base-uri 'self'" },
          { key: "X-Frame-Options", value: "DENY" },
          // Answers are what their Content-Type says: a browser must not sniff JSON or CSV into a page.
          { key: "X-Content-Type-Options", value: "nosniff" },
          // Other sites learn at most this origin, never a purchase's path or query.
          { key: "Referrer-Policy", value: "strict-origin-when-cross-origin" },
          // Nothing here needs the camera, microphone, location or payment-request APIs.
          { key: "Permissions-Policy", value: "camera=(), microphone=(), geolocation=(), payment=()" },
          // Production is served over https (behind a proxy): browsers must never fall back to http.
          ...(production ? [{ key: "Strict-Transport-Security", value: "max-age=31536000; includeSubDomains" }] : []),
        ],
      },
    ];
  },
};

export default nextConfig;
