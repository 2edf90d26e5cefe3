import http from "node:http";
import type { AddressInfo } from "node:net";
import net from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { safeLookup, sendWebhook } from "./send";
import { PRIVATE_TARGETS_HINT, type Resolver } from "./target";

/** Every receiver is a server on 127.0.0.1; nothing here leaves the machine. */
const closers: Array<() => Promise<void>> = [];

afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

interface Receiver {
  port: number;
  requests: Array<{ method: string; url: string; headers: http.IncomingHttpHeaders; body: string }>;
}

async function receiver(answer: (request: http.IncomingMessage, response: http.ServerResponse) => void) {
  const seen: Receiver["requests"] = [];
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      seen.push({
        method: request.method ?? "",
        url: request.url ?? "",
        headers: request.headers,
        body: Buffer.concat(chunks).toString("utf8"),
      });
      answer(request, response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  closers.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return { port: (server.address() as AddressInfo).port, requests: seen } satisfies Receiver;
}

/** A bare TCP server that counts connections: proves that nothing connected at all. */
async function connectionCounter() {
  const counter = { port: 0, connections: 0 };
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    counter.connections += 1;
    sockets.add(socket);
    socket.on("error", () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  counter.port = (server.address() as AddressInfo).port;
  closers.push(
    () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  );
  return counter;
}

const toLoopback: Resolver = async () => [{ address: "127.0.0.1", family: 4 }];

describe("sendWebhook to a local receiver (allowPrivate)", () => {
  it("POSTs the body with its headers and returns the status and body", async () => {
    const target = await receiver((_request, response) => {
      response.writeHead(202, { "content-type": "text/plain" }).end("thanks ✓");
    });
    const result = await sendWebhook({
      url: `http://127.0.0.1:${target.port}/hooks?x=1`,
      headers: { "webhook-id": "msg_1", "Webhook-Signature": "v1,abc", "content-type": "text/plain" },
      body: JSON.stringify({ type: "top_up.paid" }),
      allowPrivate: true,
    });
    expect(result).toMatchObject({ status: 202, body: "thanks ✓", error: null });
    expect(result.durationMs).toBeGreaterThanOrEqual(0);
    expect(target.requests).toHaveLength(1);
    const [seen] = target.requests;
    expect(seen?.method).toBe("POST");
    expect(seen?.url).toBe("/hooks?x=1");
    expect(seen?.body).toBe('{"type":"top_up.paid"}');
    expect(seen?.headers["content-type"]).toBe("application/json");
    expect(seen?.headers["user-agent"]).toBe("points-webhooks/1");
    expect(seen?.headers["webhook-id"]).toBe("msg_1");
    expect(seen?.headers["webhook-signature"]).toBe("v1,abc");
    expect(seen?.headers.connection).toBe("close");
  });

  it("connects to the address the resolver gave, keeping the name in the Host header", async () => {
    const target = await receiver((_request, response) => response.writeHead(204).end());
    const result = await sendWebhook({
      url: `http://hooks.test:${target.port}/`,
      headers: {},
      body: "{}",
      allowPrivate: true,
      resolver: toLoopback,
    });
    expect(result).toMatchObject({ status: 204, error: null });
    expect(target.requests[0]?.headers.host).toBe(`hooks.test:${target.port}`);
  });

  it("returns a non-2xx answer as it is", async () => {
    const target = await receiver((_request, response) => response.writeHead(500).end("oops"));
    const result = await sendWebhook({
      url: `http://127.0.0.1:${target.port}/`,
      headers: {},
      body: "{}",
      allowPrivate: true,
    });
    expect(result).toMatchObject({ status: 500, body: "oops", error: null });
  });

  it("does not follow a redirect", async () => {
    const elsewhere = await receiver((_request, response) => response.writeHead(200).end("followed"));
    const target = await receiver((_request, response) => {
      response.writeHead(302, { location: `http://127.0.0.1:${elsewhere.port}/` }).end();
    });
    const result = await sendWebhook({
      url: `http://127.0.0.1:${target.port}/`,
      headers: {},
      body: "{}",
      allowPrivate: true,
    });
    expect(result).toMatchObject({ status: 302, error: null });
    expect(elsewhere.requests).toHaveLength(0);
  });

  it("gives up at the deadline when the receiver never answers", async () => {
    const target = await receiver(() => {});
    const result = await sendWebhook({
      url: `http://127.0.0.1:${target.port}/`,
      headers: {},
      body: "{}",
      allowPrivate: true,
      timeoutMs: 300,
    });
    expect(result.status).toBeNull();
    expect(result.error).toMatch(/timed out after 0.3 s/);
    expect(result.durationMs).toBeGreaterThanOrEqual(290);
    expect(result.durationMs).toBeLessThan(2_000);
  });

  it("keeps the status when the deadline falls while the body is read", async () => {
    const target = await receiver((_request, response) => {
      response.writeHead(200);
      response.write("partial");
    });
    const result = await sendWebhook({
      url: `http://127.0.0.1:${target.port}/`,
      headers: {},
      body: "{}",
      allowPrivate: true,
      timeoutMs: 300,
    });
    expect(result).toMatchObject({ status: 200, body: "partial", error: "timed out after 0.3 s" });
  });

  it("reads at most 64 KiB of a large body, then stops", async () => {
    const target = await receiver((_request, response) => {
      response.writeHead(200, { "content-type": "text/plain" });
      const chunk = "x".repeat(16 * 1024);
      for (let i = 0; i < 64; i++) response.write(chunk);
      response.end();
    });
    const result = await sendWebhook({
      url: `http://127.0.0.1:${target.port}/`,
      headers: {},
      body: "{}",
      allowPrivate: true,
    });
    expect(result.status).toBe(200);
    expect(result.error).toBeNull();
    expect(result.body).toHaveLength(65_536);
    expect(result.durationMs).toBeLessThan(1_000);
  });

  it("cuts a body at the cap without splitting a character", async () => {
    const target = await receiver((_request, response) => response.writeHead(200).end("ab€cd"));
    const result = await sendWebhook({
      url: `http://127.0.0.1:${target.port}/`,
      headers: {},
      body: "{}",
      allowPrivate: true,
      maxResponseBytes: 4,
    });
    expect(result).toMatchObject({ status: 200, body: "ab", error: null });
  });

  it("reports a closed port as an error without throwing", async () => {
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const result = await sendWebhook({ url: `http://127.0.0.1:${port}/`, headers: {}, body: "{}", allowPrivate: true });
    expect(result.status).toBeNull();
    expect(result.error).toMatch(/ECONNREFUSED/);
  });

  it("reports an invalid header as an error without throwing", async () => {
    const target = await receiver((_request, response) => response.writeHead(200).end());
    const result = await sendWebhook({
      url: `http://127.0.0.1:${target.port}/`,
      headers: { "webhook-id": "a\r\nx-injected: 1" },
      body: "{}",
      allowPrivate: true,
    });
    expect(result.status).toBeNull();
    expect(result.error).toMatch(/ERR_INVALID_CHAR|Invalid character/);
    expect(target.requests).toHaveLength(0);
  });
});

describe("sendWebhook to private targets (not allowPrivate)", () => {
  it("refuses http://127.0.0.1 before any request", async () => {
    const counter = await connectionCounter();
    const result = await sendWebhook({
      url: `http://127.0.0.1:${counter.port}/`,
      headers: {},
      body: "{}",
      allowPrivate: false,
    });
    expect(result).toMatchObject({ status: null, error: `refused: The URL must use https. ${PRIVATE_TARGETS_HINT}` });
    expect(counter.connections).toBe(0);
  });

  it("refuses https://127.0.0.1 before any connection", async () => {
    const counter = await connectionCounter();
    const result = await sendWebhook({
      url: `https://127.0.0.1:${counter.port}/`,
      headers: {},
      body: "{}",
      allowPrivate: false,
    });
    expect(result.status).toBeNull();
    expect(result.error).toMatch(/private or loopback address \(127\.0\.0\.1\)/);
    expect(counter.connections).toBe(0);
  });

  it("refuses, at connect, a name that resolves to a loopback address", async () => {
    const counter = await connectionCounter();
    const result = await sendWebhook({
      url: `https://loopback.test:${counter.port}/`,
      headers: {},
      body: "{}",
      allowPrivate: false,
      resolver: toLoopback,
    });
    expect(result.status).toBeNull();
    expect(result.error).toMatch(/loopback\.test resolves to 127\.0\.0\.1/);
    // Give a stray connection the time to arrive, should there be one.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(counter.connections).toBe(0);
  });
});

describe("safeLookup", () => {
  const resolver: Resolver = async (hostname) =>
    hostname === "public.test" ? [{ address: "93.184.215.14", family: 4 }] : [{ address: "10.0.0.1", family: 4 }];
  const lookup = safeLookup({ allowPrivate: false, resolver });

  function call(hostname: string, all: boolean) {
    return new Promise<{ error: Error | null; address: unknown; family: unknown }>((resolve) => {
      lookup(hostname, { all }, (error, address, family) => resolve({ error, address, family }));
    });
  }

  it("answers with one address, or with a list when asked for all", async () => {
    expect(await call("public.test", false)).toEqual({ error: null, address: "93.184.215.14", family: 4 });
    expect(await call("public.test", true)).toMatchObject({
      error: null,
      address: [{ address: "93.184.215.14", family: 4 }],
    });
  });

  it("passes the refusal to the callback", async () => {
    for (const all of [false, true]) {
      const { error } = await call("private.test", all);
      expect(error?.message).toMatch(/10\.0\.0\.1/);
    }
  });
});
