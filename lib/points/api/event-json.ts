import { rowReader } from "@/lib/db/hot";
import { type EventRow, topUps } from "@/lib/db/schema";
import type { EventJson, EventType } from "../events/events";
import { toTopUpJson } from "./top-up-json";

const readTopUpRow = rowReader(topUps);

/** An event as the feed and the webhooks send it (docs/contract.md §8). */
export function toEventJson(row: EventRow): EventJson {
  const stored = row.data as Record<string, unknown>;
  const data =
    stored.top_up && typeof stored.top_up === "object"
      ? { ...stored, top_up: toTopUpJson(readTopUpRow(stored.top_up as Record<string, unknown>)) }
      : stored;
  return {
    id: row.id,
    type: row.type as EventType,
    sequence: row.sequence,
    created_at: row.createdAt.toISOString(),
    organization_id: row.organizationId,
    data,
  };
}
