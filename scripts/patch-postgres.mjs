// Mends a race of postgres.js 3.4.9 in place (npm's postinstall runs this after every install) that
// breaks sql.begin, which every drizzle transaction is, under load: a connection's BEGIN is
// reserved for its transaction only when the driver may still pipeline more queries onto it. When
// BEGIN fills the pipeline, or the socket's buffer is full (a pooler or a restarting Postgres not
// reading), BEGIN is sent unreserved: the transaction fails with UNSAFE_TRANSACTION (a 500), or
// other requests' queries run inside it. Upstream: porsager/postgres issues 823, 1189 and 1210,
// pull requests 1206, 1207, 1211 and 1218, none released. lib/db/driver.pg.test.ts fails without it.
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

const require = createRequire(import.meta.url);
// The package's root: its entry (cjs/src/index.js) is two folders down; package.json is not exported.
const root = path.resolve(path.dirname(require.resolve("postgres")), "..", "..");
const { version } = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8"));

const MARK = "/* points: patched */";
const changes = [
  {
    from: `      return write(toBuffer(q))
        && !q.describeFirst
        && !q.cursorFn
        && sent.length < max_pipeline
        && (!q.options.onexecute || q.options.onexecute(connection))`,
    to: `      ${MARK}
      const more = write(toBuffer(q))
        && !q.describeFirst
        && !q.cursorFn
        && sent.length < max_pipeline
      if (q.options.onexecute) {
        q.options.onexecute(connection)
        return false
      }
      return more`,
  },
];

let patched = 0;
for (const dir of ["src", "cjs/src", "cf/src"]) {
  const file = path.join(root, dir, "connection.js");
  if (!fs.existsSync(file)) continue;
  let text = fs.readFileSync(file, "utf8");
  if (text.includes(MARK)) continue;
  for (const { from, to } of changes) {
    if (!text.includes(from)) {
      console.error(
        `scripts/patch-postgres.mjs: postgres ${version}'s ${dir}/connection.js is not the code this patch mends. ` +
          "Check whether the new version fixes sql.begin's races (see the script), then update or remove the patch.",
      );
      process.exit(1);
    }
    text = text.replace(from, to);
  }
  fs.writeFileSync(file, text);
  patched += 1;
}
if (patched > 0) console.log(`postgres ${version}: sql.begin's pipeline race mended in ${patched} builds`);
