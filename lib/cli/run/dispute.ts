import { syncDispute } from "@/lib/points/after-payment/disputes";
import { recordAudit } from "@/lib/points/audit";
import { getPointsBalance } from "@/lib/points/balance/ledger";
import { deliverPendingEvents } from "@/lib/points/intake/provider-events";
import { assertChargedHere } from "@/lib/points/purchase/charged-by";
import type { Runtime } from "@/lib/server/runtime";
import type { PointsCommand } from "../commands";
import { type CliIo, printJson } from "../output";
import { CommandRefused, getTopUp, noSuchTopUp } from "./shared";

/**
 * `dispute settle`: the bank decides a test-mode dispute (the simulated provider, or Stripe's test
 * mode through winning or losing evidence), then the dispute's Points move as its events would move them.
 */
export async function disputeSettle(
  command: Extract<PointsCommand, { kind: "dispute-settle" }>,
  runtime: Runtime,
  io: CliIo,
): Promise<void> {
  const topUp = await getTopUp(runtime.db, command.topUpId);
  if (!topUp) throw noSuchTopUp(runtime, command.topUpId);
  assertChargedHere(runtime.provider, topUp, "dispute");
  const settle = runtime.provider.testMode?.settleDispute;
  if (!settle)
    throw new CommandRefused(`${runtime.provider.displayName} cannot settle disputes from here: only in test mode.`);
  if (!topUp.disputeId)
    throw new CommandRefused(
      `Top-up ${topUp.id} has no dispute (yet: run \`npm run points -- reconcile\` to take the provider's events).`,
    );
  if (topUp.disputeStatus !== "open")
    throw new CommandRefused(`The dispute of ${topUp.id} is ${topUp.disputeStatus} already.`);
  await settle(topUp.disputeId, command.outcome);
  await runtime.db.transaction((tx) =>
    recordAudit(tx, {
      organizationId: topUp.organizationId,
      action: "dispute.settled",
      target: topUp.id,
      before: { dispute_id: topUp.disputeId, status: "open" },
      after: { dispute_id: topUp.disputeId, status: command.outcome },
      at: runtime.clock.now(),
    }),
  );
  await syncDispute(runtime, topUp.disputeId, null);
  await deliverPendingEvents(runtime);
  const settled = await getTopUp(runtime.db, topUp.id);
  const balance = await getPointsBalance(runtime.db, topUp.organizationId);
  const state = settled?.disputePointsState ?? "held";
  if (command.json) {
    printJson(io, {
      top_up_id: topUp.id,
      dispute_id: topUp.disputeId,
      status: settled?.disputeStatus,
      points: settled?.disputePoints,
      points_state: state,
      points_balance: balance,
    });
    return;
  }
  io.stdout(
    `Dispute of ${topUp.id} ${command.outcome}: ${settled?.disputePoints ?? 0} Points ${state}. Balance of ${topUp.organizationId}: ${balance} Points.\n`,
  );
}
