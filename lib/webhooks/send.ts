import http from "node:http";
import https from "node:https";
import type { LookupFunction } from "node:net";
import { StringDecoder } from "node:string_decoder";
import { checkWebhookUrl, type Resolver, resolvePublicAddress, type TargetOptions } from "./target";

/** One delivery attempt: the endpoint, its headers (the signature among them) and the JSON body. */
export interface WebhookRequest extends TargetOptions {
  url: string;
  headers: Record<string, string>;
  body: string;
  resolver?: Resolver;
  /** The deadline for the whole exchange: connect, answer and body. Default 15 s. */
  timeoutMs?: number;
  /** How much of the answer's body is read and kept. Default 64 KiB. */
  maxResponseBytes?: number;
}

/** What came back: the answer's status and the start of its body, or why there was no answer. */
export interface WebhookResponse {
  /** The HTTP status, or null when no answer arrived. */
  status: number | null;
  durationMs: number;
  /** At most maxResponseBytes of the answer's body, as UTF-8. */
  body: string;
  /**
   * Null when an answer arrived (its body read whole or up to the cap). Otherwise a short reason:
   * the URL refused, an address refused, a network error, or the deadline (then `status` still
   * holds the answer's status if it had arrived before its body was cut short).
   */
  error: string | null;
  /** True when the deadline ran out before the exchange ended. */
  timedOut: boolean;
  /** The answer's `Retry-After` header as sent (seconds or an HTTP date), or null. */
  retryAfter: string | null;
}

const DEFAULT_TIMEOUT_MS = 15_000;
const DEFAULT_MAX_RESPONSE_BYTES = 65_536;
const USER_AGENT = "points-webhooks/1";

/**
 * The socket's lookup: resolves through `resolvePublicAddress`, so the address is checked at every
 * connect, after DNS, and the socket connects to exactly the address that was checked (no second
 * resolution to rebind). Answers in both callback forms: one address, or a list when Node asks for
 * `all` (as it does when it tries IPv4 and IPv6 in turn).
 */
export function safeLookup(options: TargetOptions & { resolver?: Resolver }): LookupFunction {
  return (hostname, lookupOptions, callback) => {
    resolvePublicAddress(hostname, options).then(
      ({ address, family }) => {
        if (lookupOptions.all) callback(null, [{ address, family }]);
        else callback(null, address, family);
      },
      (error: unknown) => {
        callback(error instanceof Error ? error : new Error(String(error)), lookupOptions.all ? [] : "");
      },
    );
  };
}

/** A network error as one short line: its code, then its message (when that does not say it already). */
function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as NodeJS.ErrnoException).code;
  return code && !error.message.includes(code) ? `${code}: ${error.message}` : error.message;
}

/**
 * POSTs one webhook and never rejects: every failure comes back as `error`. The URL is checked
 * again (it may have been saved under other rules), each connect goes through `safeLookup` so
 * TLS SNI and Host stay the endpoint's name, redirects are not followed (a 3xx is an answer like
 * any other), one deadline covers the whole exchange, and the body is read only up to the cap.
 */
export async function sendWebhook(request: WebhookRequest): Promise<WebhookResponse> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const checked = checkWebhookUrl(request.url, request);
  if (!checked.ok) {
    const error = `refused: ${checked.reason}`;
    return { status: null, durationMs: elapsed(), body: "", error, timedOut: false, retryAfter: null };
  }
  const { url } = checked;
  const timeoutMs = request.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxBytes = request.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;

  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) headers[name.toLowerCase()] = value;
  delete headers.host;
  headers["content-type"] = "application/json";
  headers["user-agent"] = USER_AGENT;
  headers["content-length"] = String(Buffer.byteLength(request.body));

  return new Promise<WebhookResponse>((resolve) => {
    let status: number | null = null;
    let retryAfter: string | null = null;
    const chunks: string[] = [];
    const decoder = new StringDecoder("utf8");
    let done = false;
    let timer: NodeJS.Timeout | undefined;
    let outgoing: http.ClientRequest | undefined;

    const finish = (error: string | null, timedOut = false) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolve({ status, durationMs: elapsed(), body: chunks.join(""), error, timedOut, retryAfter });
    };

    try {
      const transport = url.protocol === "https:" ? https : http;
      outgoing = transport.request(url, {
        method: "POST",
        headers,
        agent: false,
        lookup: safeLookup({
          allowPrivate: request.allowPrivate,
          allowLoopback: request.allowLoopback,
          resolver: request.resolver,
        }),
      });
    } catch (error) {
      finish(describeError(error));
      return;
    }
    const req = outgoing;

    timer = setTimeout(() => {
      finish(`timed out after ${timeoutMs / 1000} s`, true);
      req.destroy();
    }, timeoutMs);

    req.on("error", (error) => finish(describeError(error)));
    req.on("response", (response) => {
      status = response.statusCode ?? null;
      const header = response.headers["retry-after"];
      retryAfter = typeof header === "string" ? header : null;
      let received = 0;
      response.on("data", (chunk: Buffer) => {
        if (done) return;
        const kept = chunk.subarray(0, maxBytes - received);
        received += kept.length;
        // A character split by the cap is left out (the decoder holds its first bytes back).
        chunks.push(decoder.write(kept));
        if (received >= maxBytes) {
          finish(null);
          response.destroy();
          req.destroy();
        }
      });
      response.on("end", () => {
        if (!done) chunks.push(decoder.end());
        finish(null);
      });
      response.on("error", (error) => finish(describeError(error)));
      response.on("close", () => finish("the connection closed before the answer's body ended"));
    });
    req.end(request.body);
  });
}
