# The Points service as one image: Next's standalone server (output: "standalone"), run as the
# unprivileged `node` user. The migrations are a separate command, run once per release before
# the new servers start (README, "Deploying"):
#   docker build -t points .
#   docker run --rm -e DATABASE_URL=postgres://… points node scripts/migrate.mjs
#   docker run -p 3000:3000 -e DATABASE_URL=postgres://… -e AUTH_SECRET=… points

# Every dependency, exactly as locked: the build needs the dev ones (TypeScript, Tailwind).
FROM node:20-bookworm-slim AS deps
WORKDIR /src
# Its postinstall (patch-package) mends the Postgres driver from patches/, so that folder comes too:
# scripts on, or the server refuses to start (patches/README.md).
COPY package.json package-lock.json ./
COPY patches ./patches/
RUN npm ci --no-audit --no-fund

# The production build, then the image's files laid out by the script the e2e test runs too.
FROM node:20-bookworm-slim AS build
WORKDIR /src
ENV NEXT_TELEMETRY_DISABLED=1
COPY --from=deps /src/node_modules ./node_modules
COPY . .
RUN npm run build && node scripts/standalone-layout.mjs /out

# Only the layout: the traced production dependencies, no source, no dev dependency, no npm run.
FROM node:20-bookworm-slim AS runner
WORKDIR /app
ENV NODE_ENV=production \
    NEXT_TELEMETRY_DISABLED=1 \
    HOSTNAME=0.0.0.0 \
    PORT=3000 \
    PGLITE_DIR=/data/pglite
# The code stays root's and read-only to the server; it writes only Next's cache and, without
# DATABASE_URL, the embedded database under /data (mount a volume there to keep it).
COPY --from=build /out /app
RUN mkdir -p /app/.next/cache /data && chown node:node /app/.next/cache /data
USER node
EXPOSE 3000
# /healthz touches nothing: the process is up. A balancer should route by /readyz.
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.PORT}/healthz`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# SIGTERM: /readyz answers 503 while the listener stays open (POINTS_SHUTDOWN_DELAY_SECONDS, 5 s), then
# purchases in flight drain (POINTS_DRAIN_SECONDS, 20 s): give `docker stop` -t 30 or more.
STOPSIGNAL SIGTERM
CMD ["node", "scripts/standalone-server.mjs"]
