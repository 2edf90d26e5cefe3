/**
 * The topology's webhooks: every organisation of the test has an endpoint on this receiver, and
 * after the restarts and faults every event committed must have arrived, each organisation's
 * sequence with no gap, and no event may have been in flight twice at the same moment (a resend
 * after an instance died is allowed: delivery is at least once).
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import type postgres from "postgres";

interface Receipt {
  id: string;
  organizationId: string;
  sequence: number;
  startedAt: number;
  endedAt: number;
}

/** How long the receiver takes to answer: a send then spans a moment another send could overlap. */
const ANSWER_DELAY_MS = 20;

export async function startWebhookReceiver() {
  const receipts: Receipt[] = [];
  const server = http.createServer((request, response) => {
    const startedAt = Date.now();
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      setTimeout(() => {
        const event = JSON.parse(Buffer.concat(chunks).toString("utf8")) as {
          id: string;
          organization_id: string;
          sequence: number;
        };
        receipts.push({
          id: event.id,
          organizationId: event.organization_id,
          sequence: event.sequence,
          startedAt,
          endedAt: Date.now(),
        });
        response.writeHead(204).end();
      }, ANSWER_DELAY_MS);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/topology-hooks`,
    receipts,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Waits (up to waitMs) for every committed event to arrive, then judges what arrived. */
export async function checkWebhooks(
  sql: postgres.Sql,
  receipts: Receipt[],
  organizationIds: string[],
  waitMs: number,
): Promise<{ failures: string[]; metrics: Record<string, unknown> }> {
  const committed = await sql<{ id: string; organization_id: string; sequence: string }[]>`
    select id, organization_id, sequence from events where organization_id = any(${organizationIds})`;
  const deadline = Date.now() + waitMs;
  const arrived = () => new Set(receipts.map((receipt) => receipt.id));
  while (Date.now() < deadline && committed.some((event) => !arrived().has(event.id))) {
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const failures: string[] = [];
  const seen = arrived();
  const missing = committed.filter((event) => !seen.has(event.id));
  if (missing.length > 0) failures.push(`${missing.length} of ${committed.length} committed events never arrived`);
  for (const organizationId of organizationIds) {
    const sequences = [
      ...new Set(receipts.filter((receipt) => receipt.organizationId === organizationId).map((r) => r.sequence)),
    ].sort((a, b) => a - b);
    if (sequences.some((sequence, index) => sequence !== index + 1))
      failures.push(`organisation ${organizationId} received sequences with a gap`);
  }
  let overlapping = 0;
  const byId = new Map<string, Receipt[]>();
  for (const receipt of receipts) byId.set(receipt.id, [...(byId.get(receipt.id) ?? []), receipt]);
  for (const sends of byId.values()) {
    const sorted = [...sends].sort((a, b) => a.startedAt - b.startedAt);
    for (let index = 1; index < sorted.length; index++) {
      if ((sorted[index]?.startedAt ?? 0) < (sorted[index - 1]?.endedAt ?? 0)) overlapping += 1;
    }
  }
  if (overlapping > 0) failures.push(`${overlapping} events were being sent twice at the same moment`);
  const deliveries = await sql<{ status: string; claimed: boolean; count: number }[]>`
    select status, locked_until is not null as claimed, count(*)::int as count from webhook_deliveries
    where organization_id = any(${organizationIds}) group by 1, 2 order by 1, 2`;
  return {
    failures,
    metrics: {
      committed: committed.length,
      received: receipts.length,
      resent: receipts.length - byId.size,
      deliveries: Object.fromEntries(
        deliveries.map((row) => [`${row.status}${row.claimed ? " (claimed)" : ""}`, row.count]),
      ),
    },
  };
}
