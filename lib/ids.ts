import { randomBytes } from "node:crypto";

/** Every id the service hands out is prefixed, so a stray id says what it is. */
const prefixes = {
  organization: "org",
  apiKey: "key",
  user: "usr",
  topUp: "tu",
  ledger: "led",
  request: "req",
  simCustomer: "cus_sim",
  simPaymentMethod: "pm_sim",
  simPayment: "pi_sim",
  refund: "rf",
  simRefund: "re_sim",
  simDispute: "du_sim",
  simEvent: "evt_sim",
  event: "evt",
  webhookEndpoint: "we",
  webhookDelivery: "wd",
  auditEntry: "aud",
  spend: "sp",
  grant: "gr",
} as const;

export type IdKind = keyof typeof prefixes;

const alphabet = "0123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";

/** The largest multiple of the alphabet's length a byte can be: bytes from it up are skipped. */
const UNBIASED_BELOW = 256 - (256 % alphabet.length);
const POOL_BYTES = 4096;
let pool = Buffer.alloc(0);
let taken = 0;

/**
 * Random bytes from a pool filled by the system's CSPRNG a few KiB at a time: asking it for a few
 * bytes per id costs more than the id. Each byte is handed out once and wiped from the pool as it
 * is, so no id (or key) can be read back from it.
 */
function randomBytesPooled(count: number): Buffer {
  if (count > POOL_BYTES) return randomBytes(count);
  if (taken + count > pool.length) {
    pool = randomBytes(POOL_BYTES);
    taken = 0;
  }
  const bytes = Buffer.from(pool.subarray(taken, taken + count));
  pool.fill(0, taken, taken + count);
  taken += count;
  return bytes;
}

export function randomString(length: number): string {
  const bytes = randomBytesPooled(length * 2);
  let out = "";
  for (let i = 0; i < bytes.length && out.length < length; i++) {
    const byte = bytes[i] ?? 0;
    // Rejection sampling keeps every character equally likely.
    if (byte < UNBIASED_BELOW) out += alphabet[byte % alphabet.length];
  }
  return out.length === length ? out : out + randomString(length - out.length);
}

export function newId(kind: IdKind): string {
  return `${prefixes[kind]}_${randomString(20)}`;
}

let lastTime = 0;
let sameTimeCount = 0;

/**
 * An id that sorts in the order this process made them (then by time across processes): the
 * wall-clock milliseconds and a counter within one millisecond, then randomness. For records
 * whose order is their meaning, like the audit log's entries.
 */
export function newOrderedId(kind: IdKind): string {
  const now = Date.now();
  if (now > lastTime) {
    lastTime = now;
    sameTimeCount = 0;
  } else {
    sameTimeCount += 1;
  }
  return `${prefixes[kind]}_${lastTime.toString(36).padStart(9, "0")}${sameTimeCount.toString(36).padStart(4, "0")}${randomString(8)}`;
}
