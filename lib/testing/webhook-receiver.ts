import http from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";

/*
 * A webhook receiver for tests: a real HTTP server on loopback that keeps what it was sent and
 * verifies signatures with the standardwebhooks package (the specification's own implementation).
 */

export interface Received {
  id: string;
  timestamp: string;
  signature: string;
  body: string;
  at: number;
}

/** A receiving HTTP server on loopback; `answer` decides each response's status (and headers). */
export async function startReceiver() {
  const received: Received[] = [];
  let answer: (
    request: Received,
  ) => number | "hang" | { status: number; headers?: Record<string, string>; afterMs?: number } = () => 200;
  /** Requests open now (received, not yet answered), and the most ever open at once. */
  const open = { now: 0, most: 0 };
  const server = http.createServer((request, response) => {
    open.now += 1;
    open.most = Math.max(open.most, open.now);
    response.on("close", () => {
      open.now -= 1;
    });
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const got: Received = {
        id: String(request.headers["webhook-id"]),
        timestamp: String(request.headers["webhook-timestamp"]),
        signature: String(request.headers["webhook-signature"]),
        body: Buffer.concat(chunks).toString("utf8"),
        at: Date.now(),
      };
      received.push(got);
      const answered = answer(got);
      if (answered === "hang") return;
      if (typeof answered === "number") response.writeHead(answered).end("ok");
      else setTimeout(() => response.writeHead(answered.status, answered.headers).end("later"), answered.afterMs ?? 0);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    open,
    answerWith(next: typeof answer) {
      answer = next;
    },
    /** Each body verified with the standardwebhooks package under `secret`, parsed. */
    verified(secret: string) {
      const webhook = new Webhook(secret);
      return received.map((got) =>
        webhook.verify(got.body, {
          "webhook-id": got.id,
          "webhook-timestamp": got.timestamp,
          "webhook-signature": got.signature,
        }),
      ) as Array<{ id: string; type: string; sequence: number; data: Record<string, unknown> }>;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
