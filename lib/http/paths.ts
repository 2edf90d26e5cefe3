import { PointsError } from "@/lib/points/errors";

/**
 * Whether scripts/api-paths.mjs sent this request to the /v3 catch-all because its path was not
 * written exactly (a trailing slash, a repeated slash, a dot segment…). Only that file's stamp
 * counts: it names its header in the environment, and removes any copy a client sent.
 */
export function isInexactPath(request: Request): boolean {
  const header = process.env.POINTS_INEXACT_PATH_HEADER;
  return header !== undefined && header !== "" && request.headers.get(header) === "1";
}

/** What any path under /v3 that is not an endpoint answers: 404 not_found. */
export function noSuchEndpoint(request: Request): PointsError {
  return new PointsError(
    "not_found",
    isInexactPath(request)
      ? "There is no endpoint at this path: paths under /v3 are exact, with no trailing slash, repeated slash or dot segment (GET /v3/openapi.json lists every endpoint)."
      : "There is no such endpoint: GET /v3/openapi.json lists every endpoint, such as POST /v3/points/top-ups.",
  );
}
