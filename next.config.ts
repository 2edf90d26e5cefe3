import type { NextConfig } from "next";

const nextConfig: NextConfig = {
  poweredByHeader: false,
  // gzip, for answers of 1 KiB and more (the `compression` middleware's threshold): the pages' scripts
  // shrink to under a third, while nearly every API answer is smaller and goes out as it is. README's
  // "Pages: compression" has the numbers.
  compress: true,
  reactStrictMode: true,
  // .next/standalone: the server with only the production files it uses, for the Docker image
  // (scripts/standalone-layout.mjs). `npm start` serves the same build as before.
  output: "standalone",
  experimental: {
    // Every `next dev` starts as a first start does: a restored Turbopack cache is what sent restarts
    // into a reload loop (commit fc9d09a has the story). e2e/dev/restart.spec.ts holds to it.
    // scripts/next-banner.mjs keeps it out of the startup banner's list of experiments.
    turbopackFileSystemCacheForDev: false,
  },
  // PGlite ships wasm and postgres.js opens sockets: both stay plain Node modules, not bundled.
  // pino and prom-client too: one copy each, loaded by Node as their authors test them.
  serverExternalPackages: ["@electric-sql/pglite", "postgres", "pino", "prom-client"],
  // The guide was served at /docs/api before the reference took /docs: old links keep working.
  async redirects() {
    return [{ source: "/docs/api", destination: "/docs/guide", permanent: true }];
  },
  async headers() {
    const production = process.env.NODE_ENV === "production";
    return [
      // The build's own scripts and styles: only what a browser reads for a script. The headers below
      // are about documents, and on each of a page's dozen scripts they were bytes sent for nothing.
      { source: "/_next/static/:path*", headers: [{ key: "X-Content-Type-Options", value: "nosniff" }] },
      {
        source: "/((?!_next/static/).*)",
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
