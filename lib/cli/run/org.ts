import { randomString } from "@/lib/ids";
import { createOrganization, getOrganization, updateOrganization } from "@/lib/points/accounts/organizations";
import { toSpendJson } from "@/lib/points/api/json";
import { parseSpendRequest } from "@/lib/points/api/spend-request";
import {
  balanceSettingsOf,
  checkBalanceSettings,
  NO_BALANCE_SETTINGS,
  saveBalanceSettings,
} from "@/lib/points/recharge/balance-settings";
import { spendPoints } from "@/lib/points/spends/spends";
import type { Runtime } from "@/lib/server/runtime";
import { applyBalanceChanges } from "../balance-flags";
import type { PointsCommand } from "../commands";
import { type CliIo, paymentMethodLines, paymentMethodsJson, printJson, settingsLines } from "../output";

/**
 * `org spend`: Points spent on whatever they buy, run elsewhere, through the API's own function
 * and checks. Without --reference each run is a new spend; with one, a rerun spends once.
 */
export async function orgSpend(
  command: Extract<PointsCommand, { kind: "org-spend" }>,
  runtime: Runtime,
  io: CliIo,
): Promise<void> {
  const request = parseSpendRequest({
    points: command.points,
    reference: command.reference ?? `operator-${randomString(20)}`,
    ...(command.description !== undefined ? { description: command.description } : {}),
  });
  // The recharge its crossing calls for is deferred to the command's end, as after an API spend's answer.
  const { spend, pointsBalance, replayed } = await spendPoints(runtime, {
    organizationId: command.organizationId,
    request,
    source: "operator",
  });
  if (command.json) {
    printJson(io, {
      organization_id: command.organizationId,
      spend_id: spend.id,
      spend: toSpendJson(spend),
      points: spend.points,
      points_balance: pointsBalance,
      replayed,
    });
    return;
  }
  const what = replayed ? `Already spent (${spend.id}, nothing spent again)` : `Spent (${spend.id})`;
  io.stdout(`${what}: ${spend.points} Points of ${command.organizationId}; ${pointsBalance} Points left.\n`);
}

export async function orgCreate(
  command: Extract<PointsCommand, { kind: "org-create" }>,
  runtime: Runtime,
  io: CliIo,
): Promise<void> {
  const balance = command.options.balance
    ? applyBalanceChanges(NO_BALANCE_SETTINGS, command.options.balance)
    : undefined;
  if (balance) checkBalanceSettings(balance);
  const created = await createOrganization(runtime, {
    name: command.name,
    cards: command.cards,
    settings: command.options.settings,
    defaultCardIndex: command.options.defaultCardIndex,
    simulateOutage: command.options.simulateOutage,
    billingCustomerId: command.stripeCustomer,
    adminEmail: command.adminEmail,
  });
  if (balance) created.organization = await saveBalanceSettings(runtime, created.organization.id, balance);
  if (command.json) {
    printJson(io, {
      organization_id: created.organization.id,
      api_key: created.apiKey.apiKey,
      key_id: created.apiKey.keyId,
      payment_methods: paymentMethodsJson(created.paymentMethods),
      admin: { email: created.admin.email, password: created.admin.password },
    });
    return;
  }
  io.stdout(
    [
      `Created organisation ${created.organization.id} (${created.organization.name}).`,
      `  API key:   ${created.apiKey.apiKey}`,
      `             key id ${created.apiKey.keyId}; the key is shown only now, so store it.`,
      `  admin:     ${created.admin.email}`,
      `  password:  ${created.admin.password}  (shown only now)`,
      ...paymentMethodLines(created.paymentMethods),
      ...settingsLines(created.organization, command.options.simulateOutage),
      "",
    ].join("\n"),
  );
}

export async function orgUpdate(
  command: Extract<PointsCommand, { kind: "org-update" }>,
  runtime: Runtime,
  io: CliIo,
): Promise<void> {
  // Checked before anything is written, so a refused combination changes nothing.
  const current = command.options.balance ? await getOrganization(runtime.db, command.organizationId) : undefined;
  const balance =
    current && command.options.balance
      ? applyBalanceChanges(balanceSettingsOf(current), command.options.balance)
      : undefined;
  if (balance) checkBalanceSettings(balance);
  const updated = await updateOrganization(runtime, command.organizationId, {
    ...command.options,
    billingCustomer: command.billingCustomer,
  });
  if (balance) updated.organization = await saveBalanceSettings(runtime, updated.organization.id, balance);
  if (command.json) {
    printJson(io, {
      organization_id: updated.organization.id,
      payment_methods: paymentMethodsJson(updated.paymentMethods),
    });
    return;
  }
  io.stdout(
    [
      `Updated organisation ${updated.organization.id} (${updated.organization.name}).`,
      ...(command.billingCustomer ? [`  billing customer: ${updated.organization.billingCustomerId}`] : []),
      ...paymentMethodLines(updated.paymentMethods),
      ...settingsLines(updated.organization, command.options.simulateOutage),
      "",
    ].join("\n"),
  );
}
