import { getOrganization } from "@/lib/points/accounts/organizations";
import type { Runtime } from "@/lib/server/runtime";
import {
  addEndpoint,
  deleteEndpoint,
  getEndpoint,
  listDeliveries,
  listEndpoints,
  rotateSecret,
  setEndpointStatus,
  toDeliveryJson,
  toEndpointJson,
} from "@/lib/webhooks/endpoints";
import { recoverEndpoint } from "@/lib/webhooks/recover";
import { type CliIo, printJson } from "../output";
import type { WebhookCommand } from "../webhook-commands";
import { CommandRefused } from "./shared";

/** `webhook add|list|rotate|recover|disable|enable|delete|deliveries` (docs/contract.md §8); a secret is printed once. */
export async function webhook(command: WebhookCommand, runtime: Runtime, io: CliIo): Promise<void> {
  switch (command.kind) {
    case "webhook-add": {
      const organization = await getOrganization(runtime.db, command.organizationId);
      if (!organization) throw new CommandRefused(`No organisation ${command.organizationId}.`);
      const { endpoint, secret } = await addEndpoint(runtime, organization.id, {
        url: command.url,
        events: command.events,
      });
      const out = toEndpointJson(endpoint);
      if (command.json)
        return printJson(io, { endpoint_id: out.endpoint_id, url: out.url, events: out.events, secret });
      return io.stdout(
        [
          `Added webhook endpoint ${endpoint.id} for ${organization.id}: ${endpoint.url}`,
          `  events: ${out.events?.join(", ") ?? "all"}`,
          `  secret: ${secret}`,
          "          shown only now, so store it: it verifies each delivery's webhook-signature.",
          "",
        ].join("\n"),
      );
    }
    case "webhook-list": {
      const organization = await getOrganization(runtime.db, command.organizationId);
      if (!organization) throw new CommandRefused(`No organisation ${command.organizationId}.`);
      const endpoints = (await listEndpoints(runtime.db, organization.id)).map(toEndpointJson);
      if (command.json) {
        return printJson(io, {
          endpoints: endpoints.map(({ endpoint_id, url, events, status }) => ({ endpoint_id, url, events, status })),
        });
      }
      if (endpoints.length === 0) return io.stdout(`${organization.id} has no webhook endpoints.\n`);
      return io.stdout(
        `${endpoints
          .map(
            (endpoint) =>
              `${endpoint.endpoint_id}  ${endpoint.status.padEnd(8)}  ${endpoint.url}  (${endpoint.events?.join(", ") ?? "all events"})${endpoint.disabled_reason ? `: ${endpoint.disabled_reason}` : ""}`,
          )
          .join("\n")}\n`,
      );
    }
    case "webhook-rotate": {
      const { endpoint, secret } = await rotateSecret(runtime, command.endpointId);
      if (command.json) return printJson(io, { endpoint_id: endpoint.id, secret });
      return io.stdout(
        `New secret for ${endpoint.id}: ${secret}\n  shown only now. The old secret also signs for 24 hours, so receivers can switch.\n`,
      );
    }
    case "webhook-recover": {
      const { endpoint, queued } = await recoverEndpoint(runtime, command.endpointId, command.since);
      if (command.json) return printJson(io, { endpoint_id: endpoint.id, queued });
      return io.stdout(
        queued === 0
          ? `${endpoint.id} missed nothing since ${command.since.toISOString()}: nothing queued.\n`
          : `Queued ${queued} event${queued === 1 ? "" : "s"} for ${endpoint.id}, missed since ${command.since.toISOString()}: each is sent once, in sequence order.\n`,
      );
    }
    case "webhook-disable":
    case "webhook-enable": {
      const status = command.kind === "webhook-enable" ? "enabled" : "disabled";
      const endpoint = await setEndpointStatus(runtime, command.endpointId, status);
      if (command.json) return printJson(io, { endpoint_id: endpoint.id, status: endpoint.status });
      return io.stdout(
        status === "enabled"
          ? `Enabled ${endpoint.id}: it receives the events from now on (earlier ones are in GET /v3/points/events).\n`
          : `Disabled ${endpoint.id}: nothing more is sent to it.\n`,
      );
    }
    case "webhook-delete": {
      const endpoint = await deleteEndpoint(runtime, command.endpointId);
      if (command.json) return printJson(io, { endpoint_id: endpoint.id, deleted: true });
      return io.stdout(`Deleted ${endpoint.id} and its delivery log.\n`);
    }
    case "webhook-deliveries": {
      const endpoint = await getEndpoint(runtime.db, command.endpointId);
      const deliveries = (await listDeliveries(runtime.db, endpoint)).map(toDeliveryJson);
      if (command.json) {
        return printJson(io, {
          deliveries: deliveries.map(({ event_id, attempt, status, response_status, next_attempt_at }) => ({
            event_id,
            attempt,
            status,
            response_status,
            next_attempt_at,
          })),
        });
      }
      if (deliveries.length === 0) return io.stdout(`${endpoint.id} has no deliveries yet.\n`);
      return io.stdout(
        `${deliveries
          .map(
            (delivery) =>
              `#${delivery.event_sequence} ${delivery.event_id}  ${delivery.status.padEnd(9)}  attempt ${delivery.attempt}  ${delivery.response_status ?? "-"}${delivery.next_attempt_at ? `  next ${delivery.next_attempt_at}` : ""}${delivery.error ? `  (${delivery.error})` : ""}`,
          )
          .join("\n")}\n`,
      );
    }
  }
}
