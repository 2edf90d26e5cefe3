/*
 * Money and Points taken back in proportion, in whole minor units and whole Points. The rule:
 * - an operator refunding N of a top-up's P Points refunds round-half-up(amount × N / P) minor
 *   units, except that refunding every Point still refundable refunds every minor unit still
 *   refundable, so partial refunds add up to the whole amount exactly;
 * - a refund of m minor units made at the provider takes round-half-up(P × M / amount) Points less
 *   those already refunded, where M is all the money refunded so far with it; once M reaches the
 *   whole amount, it takes every Point left. Counting from the total keeps rounding from drifting.
 * - a dispute of m minor units covers round-half-up(P × m / amount) Points, at most those left.
 */

/** round-half-up(numerator / denominator) for non-negative integers. */
export function roundHalfUp(numerator: number, denominator: number): number {
  if (denominator <= 0) throw new Error("roundHalfUp: the denominator must be positive.");
  return Math.floor((2 * numerator + denominator) / (2 * denominator));
}

interface Bought {
  points: number;
  amount: number;
}

/** The money an operator's refund of `points` returns, given what is still refundable. */
export function amountForPoints(
  bought: Bought,
  points: number,
  refundable: { points: number; amount: number },
): number {
  if (points >= refundable.points) return refundable.amount;
  return Math.min(refundable.amount, roundHalfUp(bought.amount * points, bought.points));
}

/** The Points a refund of `amount` made at the provider takes, given what was refunded before it. */
export function pointsForRefundedAmount(
  bought: Bought,
  amount: number,
  before: { points: number; amount: number },
  left: number,
): number {
  const total = before.amount + amount;
  if (total >= bought.amount) return left;
  return Math.max(0, Math.min(left, roundHalfUp(bought.points * total, bought.amount) - before.points));
}

/** The Points a dispute of `amount` covers. */
export function pointsForDisputedAmount(bought: Bought, amount: number, left: number): number {
  return Math.max(0, Math.min(left, roundHalfUp(bought.points * amount, bought.amount)));
}
