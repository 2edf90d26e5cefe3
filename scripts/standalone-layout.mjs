// `node scripts/standalone-layout.mjs <dir>`: after `npm run build`, lays out in <dir> every file
// the deployed server needs, as the Docker image holds them (the Dockerfile runs this, and
// e2e/server/standalone.spec.ts runs the result, so the two cannot drift):
//   server.js, .next/, node_modules/  Next's standalone output (`output: "standalone"`): the traced
//                                     production dependencies only
//   .next/static/, public/            the assets Next leaves to the deployment to copy
//   drizzle/                          the migrations (the server checks them for /readyz)
//   scripts/standalone-server.mjs     the server's entry, with the hooks `npm start` loads
//   scripts/migrate.mjs               the separate migrate command, and what it imports
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const STANDALONE = path.join(ROOT, ".next", "standalone");
/** Copied as they are: the entry and the three hooks it loads. */
const SCRIPTS = ["standalone-server.mjs", "socket-address.mjs", "api-paths.mjs", "graceful-shutdown.mjs"];
const MIGRATE = path.join(ROOT, "scripts", "migrate.mjs");

const target = process.argv[2];
if (!target) fail("Usage: node scripts/standalone-layout.mjs <directory>");
const out = path.resolve(target);
if (!fs.existsSync(path.join(STANDALONE, "server.js"))) {
  fail('.next/standalone/server.js is missing: run `npm run build` first (next.config.ts has output: "standalone").');
}
// Never a directory with something in it: the layout is the whole of what ships.
if (fs.existsSync(out) && fs.readdirSync(out).length > 0) fail(`${out} is not empty.`);

fs.mkdirSync(out, { recursive: true });
fs.cpSync(STANDALONE, out, { recursive: true, verbatimSymlinks: true });
fs.cpSync(path.join(ROOT, ".next", "static"), path.join(out, ".next", "static"), { recursive: true });
if (fs.existsSync(path.join(ROOT, "public")))
  fs.cpSync(path.join(ROOT, "public"), path.join(out, "public"), { recursive: true });
// Next's tracing finds drizzle/ too (lib/db/migrate.ts reads it), but the migrate command must
// not depend on what that tracing happens to find.
fs.cpSync(path.join(ROOT, "drizzle"), path.join(out, "drizzle"), { recursive: true });
for (const file of SCRIPTS) fs.cpSync(path.join(ROOT, "scripts", file), path.join(out, "scripts", file));

// The migrate command and every file it imports (drizzle-orm's migrator, postgres.js), found by
// the tracer Next itself uses for the standalone output.
const require = createRequire(import.meta.url);
const { nodeFileTrace } = require("next/dist/compiled/@vercel/nft");
const { fileList } = await nodeFileTrace([MIGRATE], { base: ROOT });
for (const file of fileList) {
  const destination = path.join(out, file);
  if (!fs.existsSync(destination)) fs.cpSync(path.join(ROOT, file), destination, { recursive: true });
}

// A developer's embedded database and AUTH_SECRET live under .data/: they must never ship.
const leaked = fs
  .readdirSync(out, { recursive: true, encoding: "utf8" })
  .filter((file) => file.split(path.sep).includes(".data"));
if (leaked.length > 0) fail(`The layout would ship local data: ${leaked.join(", ")}`);
console.log(
  `Standalone server laid out in ${out}: node scripts/standalone-server.mjs (migrations: node scripts/migrate.mjs).`,
);

function fail(message) {
  console.error(message);
  process.exit(1);
}
