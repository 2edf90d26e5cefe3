// GET /v3/points/events – the organisation's events after a sequence number, oldest first
import { handleApi, otherMethods, successResponse } from "@/lib/http/api";
import { authenticateApiRequest } from "@/lib/points/accounts/api-keys";
import { parseEventListQuery } from "@/lib/points/api/event-list";
import { toEventJson } from "@/lib/points/api/json";
import { listEvents } from "@/lib/points/events/events";
import { readerOf } from "@/lib/points/services";
import { getRuntime } from "@/lib/server/runtime";

export const dynamic = "force-dynamic";

export function GET(request: Request): Promise<Response> {
  return handleApi(request, async (requestId) => {
    const runtime = await getRuntime();
    const organization = await authenticateApiRequest(runtime.db, request.headers.get("authorization"), runtime.clock);
    const query = parseEventListQuery(new URL(request.url).searchParams);
    // From the replica when there is one (DATABASE_READ_URL): it may lag, never skip, so a page has no gap.
    const page = await listEvents(readerOf(runtime), organization.id, query);
    return successResponse(200, { events: page.events.map(toEventJson), has_more: page.hasMore }, requestId);
  });
}

const { notAllowed, options } = otherMethods("GET", "Use GET to read the organisation's events at /v3/points/events.");

export { notAllowed as POST, notAllowed as PUT, notAllowed as PATCH, notAllowed as DELETE, options as OPTIONS };
