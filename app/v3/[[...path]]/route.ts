// Any other path under /v3, and every path scripts/api-paths.mjs finds inexact – a JSON 404, so every
// /v3 answer keeps the envelope
import { handleApi } from "@/lib/http/api";
import { noSuchEndpoint } from "@/lib/http/paths";

export const dynamic = "force-dynamic";

const notFound = (request: Request) =>
  handleApi(request, async () => {
    throw noSuchEndpoint(request);
  });

export {
  notFound as GET,
  notFound as POST,
  notFound as PUT,
  notFound as PATCH,
  notFound as DELETE,
  notFound as OPTIONS,
};
