/**
 * A same-site redirect by path (303). Next builds a route handler's request.url from its own host
 * name (localhost), which need not be the one the browser used, and the session cookie belongs to
 * the browser's; a relative Location keeps the browser on its own host.
 */
export function seeOther(path: string): Response {
  return new Response(null, { status: 303, headers: { Location: path } });
}
