import { formatMoney } from "@/lib/format";
import { refundTopUp } from "@/lib/points/after-payment/refunds";
import { PointsError } from "@/lib/points/errors";
import type { Runtime } from "@/lib/server/runtime";
import type { PointsCommand } from "../commands";
import { type CliIo, printJson } from "../output";
import { CommandRefused, noSuchTopUp } from "./shared";

/**
 * `top-up refund`: the same request run again, after a crash or by a second operator, refunds
 * once (lib/points/after-payment/refunds.ts). Exit 1 when the provider refused it (nothing changed) or did not
 * answer (run the same command again).
 */
export async function topUpRefund(
  command: Extract<PointsCommand, { kind: "top-up-refund" }>,
  runtime: Runtime,
  io: CliIo,
): Promise<void> {
  const result = await refundTopUp(runtime, {
    topUpId: command.topUpId,
    points: command.points,
    reason: command.reason,
    key: command.key,
  }).catch((error: unknown) => {
    if (error instanceof PointsError && error.code === "not_found") throw noSuchTopUp(runtime, command.topUpId);
    throw error;
  });
  const { refund, topUp } = result;
  const row = {
    refund_id: refund.id,
    top_up_id: topUp.id,
    organization_id: topUp.organizationId,
    status: result.outcome,
    points: refund.points,
    amount: refund.amount,
    currency: refund.currency,
    provider_refund_id: refund.providerRefundId,
    shortfall_points: result.shortfall,
    points_balance: result.pointsBalance,
    replayed: result.replayed,
    failure: refund.failureMessage,
  };
  const money = formatMoney(refund.amount, refund.currency);
  if (result.outcome === "failed") {
    throw new CommandRefused(
      `The provider refused refund ${refund.id} of ${topUp.id}: ${refund.failureMessage ?? "no reason given"}. No Points moved; the same command again asks the provider again.`,
    );
  }
  if (result.outcome === "unresolved") {
    throw new CommandRefused(
      `The provider did not answer for refund ${refund.id} of ${topUp.id} (${refund.points} Points, ${money}); it may have been made. Run the same command again: it refunds once.`,
    );
  }
  if (command.json) {
    printJson(io, row);
    return;
  }
  const lines =
    result.outcome === "pending"
      ? [
          `Refund ${refund.id} of ${topUp.id}: ${money} accepted by the provider, not yet returned; ${refund.points} Points leave the balance once it is.`,
        ]
      : [
          `${result.replayed ? "Already refunded" : "Refunded"} ${refund.points} Points (${money}) of ${topUp.id}: refund ${refund.id}, ${refund.providerRefundId}.`,
          ...(result.shortfall > 0
            ? [
                `  ${result.shortfall} of those Points had been spent already: the balance stays at 0 and the shortfall is recorded.`,
              ]
            : []),
          `  Balance of ${topUp.organizationId}: ${result.pointsBalance} Points.`,
        ];
  io.stdout(`${lines.join("\n")}\n`);
}
