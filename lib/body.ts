/**
 * Reads a request's body, counting bytes as they arrive, and stops reading at `maxBytes`: a body
 * without a Content-Length (chunked) cannot get past the cap, nor be buffered whole first.
 * Returns the bytes, or null when the body is larger than the cap (the stream is cancelled then).
 */
export async function readBodyWithin(request: Request, maxBytes: number): Promise<Buffer | null> {
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > maxBytes) {
    await request.body?.cancel().catch(() => {});
    return null;
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (request.body) {
    const reader = request.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > maxBytes) {
        await reader.cancel().catch(() => {});
        return null;
      }
      chunks.push(value);
    }
  }
  return Buffer.concat(chunks);
}
