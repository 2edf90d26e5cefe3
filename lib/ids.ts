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
} as const;

export type IdKind = keyof typeof prefixes;

const alphabet = "0123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";

export function randomString(length: number): string {
  const bytes = randomBytes(length * 2);
  let out = "";
  for (let i = 0; i < bytes.length && out.length < length; i++) {
    const byte = bytes[i] ?? 0;
    // Rejection sampling keeps every character equally likely.
    if (byte < 232) out += alphabet[byte % alphabet.length];
  }
  return out.length === length ? out : out + randomString(length - out.length);
}

export function newId(kind: IdKind): string {
  return `${prefixes[kind]}_${randomString(20)}`;
}
