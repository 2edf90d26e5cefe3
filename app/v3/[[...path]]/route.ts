// Any other path under /v3 – a JSON 404, so every /v3 answer keeps the envelope
import { apiError, handleApi } from "@/lib/http/api";

export const dynamic = "force-dynamic";

const notFound = (request: Request) =>
  handleApi(request, async (requestId) =>
    apiError(
      "not_found",
      "There is no such endpoint: use POST /v3/points/top-ups or GET /v3/points/payment-methods.",
      requestId,
    ),
  );

export {
  notFound as GET,
  notFound as POST,
  notFound as PUT,
  notFound as PATCH,
  notFound as DELETE,
  notFound as OPTIONS,
};
