// Paths under /v3 are exact, and every answer there is the API's JSON envelope (docs/contract.md §1).
// Next.js would answer some requests itself before any of the app's code runs: a trailing slash, a
// repeated slash, a backslash or an absolute-form target with a bare 308 redirect (the last three in
// its router, which no setting turns off), dot segments (`..`, `%2e%2e`) by serving whatever path
// they resolve to (an HTML page even), a percent sign that does not decode with a bare 500, and an
// `RSC: 1` header with a bare 307. So every HTTP server this process makes looks at each request's
// target first: a request about /v3 whose path is not written exactly is sent to the /v3 catch-all
// route (app/v3/[[...path]]), stamped with a header, and answered there 404 not_found in the
// envelope; an exact one loses Next's React Server Component headers, which no /v3 route reads.
import http from "node:http";

/** Stamped on a request whose path was not exact; any copy the client sent is removed. */
const HEADER = "x-points-inexact-path";
/** Where such a request goes: a path of the /v3 catch-all route. */
const INEXACT_TARGET = "/v3/inexact-path";
/** What Next.js reads as a React Server Component request (its app-router-headers), never an API call. */
const RSC_HEADERS = new Set([
  "rsc",
  "next-router-prefetch",
  "next-router-segment-prefetch",
  "next-router-state-tree",
  "next-url",
]);
const INSTALLED = Symbol.for("points.exactApiPaths");

const underApi = (path) => path === "/v3" || path.startsWith("/v3/");

/** `.`, `..` and their percent-encoded spellings (`%2e`, `.%2E`…), which URL parsers resolve away. */
function isDotSegment(segment) {
  const dots = segment.toLowerCase().replaceAll("%2e", ".");
  return dots === "." || dots === "..";
}

function decodes(path) {
  try {
    decodeURIComponent(path);
    return true;
  } catch {
    return false;
  }
}

/** The path as a lenient reader takes it: percent-decoded, backslashes as slashes, dot segments resolved. */
function leniently(path) {
  const decoded = path.replace(/%([0-9A-Fa-f]{2})/g, (_match, hex) => String.fromCharCode(Number.parseInt(hex, 16)));
  const segments = [];
  for (const segment of decoded.replaceAll("\\", "/").split("/")) {
    if (segment === "" || segment === ".") continue;
    if (segment === "..") segments.pop();
    else segments.push(segment);
  }
  return `/${segments.join("/")}`;
}

/**
 * What the app should see of a request target, when it is about /v3: the target itself (origin-form)
 * when its path is exact, otherwise INEXACT_TARGET. Null when the request is not about /v3, or its
 * target is neither origin-form (`/v3/…`) nor absolute-form (`http://host/v3/…`): left to Next.js.
 *
 * About /v3: its path is written under /v3, or reads as a path under /v3 once decoded and resolved
 * (`//v3/…`, `/x/%2e%2e/v3/…`, `/%76%33/…`). Exact: written under /v3, with no trailing slash, no
 * empty segment, no backslash, no dot segment, and percent-encoding that decodes.
 *
 * @param {string} target the request-target, as Node's `request.url` holds it
 * @returns {{ url: string, exact: boolean } | null}
 */
export function apiRequestTarget(target) {
  let rest = target;
  // Origin-form; a backslash for its slash is read as one (Next.js reads it so, to redirect it).
  if (!rest.startsWith("/") && !rest.startsWith("\\")) {
    const origin = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#]*/.exec(rest);
    if (!origin) return null;
    rest = rest.slice(origin[0].length);
  }
  const queryAt = rest.indexOf("?");
  const path = queryAt === -1 ? rest : rest.slice(0, queryAt);
  const query = queryAt === -1 ? "" : rest.slice(queryAt);
  const written = underApi(path);
  if (!written && !underApi(leniently(path))) return null;
  const exact =
    written &&
    !path.endsWith("/") &&
    !path.includes("//") &&
    !path.includes("\\") &&
    !path.split("/").some(isDotSegment) &&
    decodes(path);
  return exact ? { url: `${path}${query}`, exact } : { url: INEXACT_TARGET, exact };
}

/** Removes headers, by lower-case name, from both of Node's copies of them. */
function dropHeaders(request, isDropped) {
  if (!Object.keys(request.headers).some(isDropped)) return;
  for (const name of Object.keys(request.headers)) if (isDropped(name)) delete request.headers[name];
  const raw = [];
  for (let i = 0; i + 1 < request.rawHeaders.length; i += 2) {
    if (!isDropped(request.rawHeaders[i].toLowerCase())) raw.push(request.rawHeaders[i], request.rawHeaders[i + 1]);
  }
  request.rawHeaders = raw;
}

/** Applies apiRequestTarget to one request, before Next.js sees it. */
export function exactApiPaths(request) {
  dropHeaders(request, (name) => name === HEADER);
  const target = typeof request.url === "string" ? apiRequestTarget(request.url) : null;
  if (!target) return;
  dropHeaders(request, (name) => RSC_HEADERS.has(name));
  request.url = target.url;
  if (!target.exact) request.headers[HEADER] = "1";
}

if (!globalThis[INSTALLED]) {
  globalThis[INSTALLED] = true;
  // How the app knows the stamp is this file's, and its name (lib/http/paths.ts).
  process.env.POINTS_INEXACT_PATH_HEADER = HEADER;
  const createServer = http.createServer;
  http.createServer = function createServerWithExactApiPaths(...args) {
    const server = createServer.apply(this, args);
    server.prependListener("request", exactApiPaths);
    return server;
  };
}
