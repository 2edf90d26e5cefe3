import type { NextConfig } from "next";

const nextConfig: NextConfig = {
  poweredByHeader: false,
  // Answers are small JSON and compact pages: gzip in the Node process costs more CPU than it saves.
  // A reverse proxy in front compresses, where one is wanted.
  compress: false,
  reactStrictMode: true,
  // PGlite ships wasm and postgres.js opens sockets: both stay plain Node modules, not bundled.
  serverExternalPackages: ["@electric-sql/pglite", "postgres"],
};

export default nextConfig;
