const FORM = "application/x-www-form-urlencoded";

/**
 * next-auth's endpoints take their POSTs as HTML forms send them; any other body (a broken JSON
 * one above all) is refused with 415 before next-auth reads it, so a client is told what to send
 * instead of getting a 500. Null when the request may go on.
 */
export function refuseUnlessFormPost(request: Request): Response | null {
  if (request.method !== "POST") return null;
  const mediaType = (request.headers.get("content-type") ?? "").split(";")[0]?.trim().toLowerCase();
  if (mediaType === FORM) return null;
  const message = `Send this as ${FORM}, as the sign-in form does.`;
  return Response.json(
    { status: "error", error: { code: "unsupported_media_type", message, details: { accepted: [FORM] } } },
    { status: 415, headers: { Accept: FORM, "Cache-Control": "no-store" } },
  );
}
