import { expect, test } from "../fixtures";
import { uniqueRef } from "../utils";

/*
 * Gzip makes an answer under 1 KiB no smaller and costs CPU at both ends, so the API sends those
 * plain even to a client that accepts gzip; a larger one (a list) is compressed for it.
 */
test("small API answers are sent plain, and a list over 1 KiB is gzipped for a client that accepts it", async ({
  request,
  fx,
}) => {
  const org = fx.organizations.compression;
  const headers = { authorization: `Bearer ${org.apiKey}`, "accept-encoding": "gzip" };
  for (let i = 0; i < 4; i++) {
    const bought = await request.post("/v3/points/top-ups", {
      headers,
      data: { points: 100, reference: uniqueRef("gzip") },
    });
    expect(bought.status()).toBe(201);
    expect(bought.headers()["content-encoding"]).toBeUndefined();
    expect(bought.headers()["cache-control"]).toBe("no-store, no-transform");
    expect((await bought.body()).byteLength).toBeLessThan(1024);
  }
  const balance = await request.get("/v3/points/balance", { headers });
  expect(balance.headers()["content-encoding"]).toBeUndefined();
  expect((await balance.json()).data.points_balance).toBe(400);

  const list = await request.get("/v3/points/top-ups?limit=4", { headers });
  expect(list.status()).toBe(200);
  expect(list.headers()["content-encoding"]).toBe("gzip");
  expect(list.headers()["cache-control"]).toBe("no-store");
  const body = await list.json();
  expect(body.data.top_ups).toHaveLength(4);
  expect(JSON.stringify(body).length).toBeGreaterThan(1024);
});
