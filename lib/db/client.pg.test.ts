import net from "node:net";
import { sql } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import { CONNECT_TIMEOUT_SECONDS, type Database, openDatabase } from "./client";
import { isDatabaseUnavailable } from "./errors";

/*
 * The pool against a database that goes away at the worst moments, as a pooler or Postgres
 * restarting makes it: through a TCP proxy in front of the test server that can cut a connection.
 */
const serverUrl = process.env.TEST_DATABASE_URL ?? "";

interface Proxy {
  url: string;
  close(): Promise<void>;
}

/** The ErrorResponse a backend sends as it is terminated (pg_terminate_backend, a fast shutdown): 57P01. */
function adminShutdown(): Buffer {
  const fields = Buffer.from(
    "SFATAL\0VFATAL\0C57P01\0Mterminating connection due to administrator command\0\0",
    "latin1",
  );
  const header = Buffer.alloc(5);
  header.write("E", 0, "latin1");
  header.writeInt32BE(fields.length + 4, 1);
  return Buffer.concat([header, fields]);
}

/**
 * Passes bytes through; `cut(chunk)` true ends that client's connection as a terminated backend
 * does: a 57P01 ErrorResponse, then the socket closed.
 */
async function startProxy(options: { cut?: (chunk: Buffer) => boolean; silent?: boolean }): Promise<Proxy> {
  const target = new URL(serverUrl);
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    sockets.add(client);
    if (options.silent) return;
    const upstream = net.connect(Number(target.port || 5432), target.hostname);
    sockets.add(upstream);
    upstream.on("data", (chunk) => client.write(chunk));
    client.on("data", (chunk) => {
      if (options.cut?.(chunk)) {
        client.end(adminShutdown());
        client.destroySoon();
        upstream.destroy();
        return;
      }
      upstream.write(chunk);
    });
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    upstream.on("error", end).on("close", end);
    client.on("error", end).on("close", end);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = new URL(serverUrl);
  url.hostname = "127.0.0.1";
  url.port = String((server.address() as net.AddressInfo).port);
  return {
    url: url.toString(),
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

describe("the Postgres pool when the database goes away", () => {
  let database: Database | undefined;
  let proxy: Proxy | undefined;
  afterEach(async () => {
    await database?.close();
    await proxy?.close();
    database = undefined;
    proxy = undefined;
  });

  it("leaves no unhandled rejection when a new connection is cut right after it opens", async () => {
    // The first query a connection sends after logging in is cut: postgres.js's own array-type
    // lookup, when it makes one, or else the app's first query (which then fails, handled).
    let cutOnce = false;
    proxy = await startProxy({
      cut: (chunk) => {
        if (cutOnce || (chunk[0] !== 0x50 && chunk[0] !== 0x51)) return false;
        cutOnce = true;
        return true;
      },
    });
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on("unhandledRejection", onUnhandled);
    try {
      database = await openDatabase({ url: proxy.url, maxConnections: 1 });
      // postgres.js 3.4.9 reports a terminated connection's error again on the first query of the
      // next one (porsager/postgres#1223): a second clean failure, then the pool is back.
      const failures: unknown[] = [];
      let answered: unknown = null;
      for (let attempt = 0; attempt < 4 && !answered; attempt++) {
        answered = await database.db.execute(sql`select 2 as two`).catch((error: unknown) => {
          failures.push(error);
          return null;
        });
      }
      expect(answered).toEqual([{ two: 2 }]);
      expect(failures.length).toBeLessThanOrEqual(2);
      for (const failure of failures) expect(isDatabaseUnavailable(failure)).toBe(true);
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(unhandled).toEqual([]);
    } finally {
      process.off("unhandledRejection", onUnhandled);
    }
  });

  it("fails a query within the connect timeout when the database accepts and never answers", async () => {
    proxy = await startProxy({ silent: true });
    database = await openDatabase({ url: proxy.url, maxConnections: 1 });
    const started = Date.now();
    const error = await database.db.execute(sql`select 1`).then(
      () => null,
      (failure: unknown) => failure,
    );
    expect(isDatabaseUnavailable(error)).toBe(true);
    expect(Date.now() - started).toBeLessThan((CONNECT_TIMEOUT_SECONDS + 2) * 1000);
  });
});
