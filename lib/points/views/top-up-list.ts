import type { Db } from "@/lib/db/client";
import type { TopUp } from "@/lib/db/schema";
import { invalidQuery } from "../api/query-params";
import { TOP_UP_ID, type TopUpListQuery } from "../api/top-up-list";
import { PointsError } from "../errors";
import { getTopUp } from "../purchase/top-ups";
import { listTopUpRange, topUpPosition } from "./history";

export interface TopUpListPage {
  topUps: TopUp[];
  hasMore: boolean;
}

/**
 * One page of the organisation's top-ups, newest first, through the History's listing. A cursor
 * names a top-up of this organisation: another's, or an unknown one, is a bad parameter, and
 * both get the same words so an ID says nothing about who owns it.
 */
export async function listTopUpsPage(db: Db, organizationId: string, query: TopUpListQuery): Promise<TopUpListPage> {
  const cursorName =
    query.startingAfter !== undefined ? "starting_after" : query.endingBefore !== undefined ? "ending_before" : null;
  const cursorId = query.startingAfter ?? query.endingBefore;
  let from: Parameters<typeof listTopUpRange>[2]["from"];
  if (cursorName && cursorId !== undefined) {
    const position = await topUpPosition(db, organizationId, cursorId);
    if (!position) {
      throw invalidQuery({ [cursorName]: "is not the ID of one of the organisation's top-ups" });
    }
    from = { position, direction: cursorName === "starting_after" ? "older" : "newer" };
  }
  const page = await listTopUpRange(db, organizationId, {
    limit: query.limit,
    from,
    reference: query.reference,
    status: query.status,
    source: query.source,
    createdGte: query.createdGte,
    createdLt: query.createdLt,
  });
  return { topUps: page.topUps.map(({ position: _position, ...topUp }) => topUp), hasMore: page.hasMore };
}

/**
 * GET /v3/points/top-ups/{id}: one of the organisation's top-ups. Another organisation's ID, an
 * unknown one and a malformed one all get the same 404, so an ID reveals nothing.
 */
export async function getTopUpOrThrow(db: Db, organizationId: string, topUpId: string): Promise<TopUp> {
  const topUp = TOP_UP_ID.test(topUpId) ? await getTopUp(db, organizationId, topUpId) : undefined;
  if (!topUp) {
    throw new PointsError("not_found", "No top-up with this ID belongs to the organisation of this API key.");
  }
  return topUp;
}
