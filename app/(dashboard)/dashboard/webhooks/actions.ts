"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import type { ActionState } from "@/lib/dashboard/action-state";
import { adminAction } from "@/lib/dashboard/admin-action";
import { EVENT_TYPES } from "@/lib/points/events/events";
import {
  addEndpoint,
  deleteEndpoint,
  getEndpoint,
  redeliver,
  rotateSecret,
  setEndpointStatus,
  webhookTargets,
} from "@/lib/webhooks/endpoints";
import { recoverEndpoint } from "@/lib/webhooks/recover";
import { sendTestEvent } from "@/lib/webhooks/request";

const PAGE = "/dashboard/webhooks";
const endpointId = z.string().min(1).max(100);

export type SecretState = ActionState<{ secret: string; endpointId: string }>;
export type DoneState = ActionState<{ message: string }>;

/** The event types ticked, as the form sends them: comma-separated, none for every type. */
const eventList = z
  .string()
  .default("")
  .transform((text) => text.split(",").filter(Boolean))
  .pipe(z.array(z.enum(EVENT_TYPES, { error: "Choose event types from the list." })));

/** Webhooks → Add: the secret goes back to this admin once and is never shown again. */
export const addEndpointAction = adminAction(
  z.object({
    url: z.string().trim().min(1, { error: "Enter the endpoint's URL." }).max(2048),
    events: eventList,
  }),
  async (form, { user, runtime }) => {
    const { endpoint, secret } = await addEndpoint(runtime, user.organizationId, {
      url: form.url,
      events: form.events,
    });
    revalidatePath(PAGE);
    return { ok: true, secret, endpointId: endpoint.id };
  },
  { messages: { invalid_request: "Check the highlighted field; no endpoint was added." } },
);

export const rotateSecretAction = adminAction(z.object({ endpointId }), async (form, { user, runtime }) => {
  const { endpoint, secret } = await rotateSecret(runtime, form.endpointId, user.organizationId);
  revalidatePath(PAGE);
  return { ok: true, secret, endpointId: endpoint.id };
});

export const endpointStatusAction = adminAction(
  z.object({ endpointId, status: z.enum(["enabled", "disabled"]) }),
  async (form, { user, runtime }) => {
    await setEndpointStatus(runtime, form.endpointId, form.status, user.organizationId);
    revalidatePath(PAGE);
    return {
      ok: true,
      message: form.status === "enabled" ? "Enabled: new events are sent to it." : "Disabled: nothing more is sent.",
    };
  },
);

export const deleteEndpointAction = adminAction(z.object({ endpointId }), async (form, { user, runtime }) => {
  await deleteEndpoint(runtime, form.endpointId, user.organizationId);
  revalidatePath(PAGE);
  return { ok: true, message: "Deleted." };
});

export const sendTestAction = adminAction(z.object({ endpointId }), async (form, { user, runtime }) => {
  const endpoint = await getEndpoint(runtime.db, form.endpointId, user.organizationId);
  const answer = await sendTestEvent(runtime, endpoint, webhookTargets());
  if (answer.status !== null && answer.status >= 200 && answer.status < 300) {
    return { ok: true, message: `Test event delivered: answered ${answer.status} in ${answer.durationMs} ms.` };
  }
  return {
    ok: false,
    error: `The test event was not delivered: ${answer.error ?? `answered ${answer.status}`} (${answer.durationMs} ms).`,
  };
});

export const redeliverAction = adminAction(
  z.object({ deliveryId: z.string().min(1).max(100) }),
  async (form, { user, runtime }) => {
    await redeliver(runtime, user.organizationId, form.deliveryId);
    revalidatePath(PAGE);
    return { ok: true, message: "Queued: it is sent again within a second." };
  },
);

/** The datetime-local field: a UTC time to the minute (or second), as the form says. */
const utcTime = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$/, { error: "Choose a date and a time." })
  .transform((text) => new Date(`${text}Z`))
  .refine((date) => !Number.isNaN(date.getTime()), { error: "Choose a date and a time." });

/** Webhooks → Send missed events: what the endpoint missed since then, each sent once. */
export const recoverAction = adminAction(z.object({ endpointId, since: utcTime }), async (form, { user, runtime }) => {
  const { queued } = await recoverEndpoint(runtime, form.endpointId, form.since, user.organizationId);
  revalidatePath(PAGE);
  return {
    ok: true,
    message:
      queued === 0
        ? "It missed nothing since then: nothing to send."
        : `Queued ${queued} event${queued === 1 ? "" : "s"}: each is sent once, in order, within seconds.`,
  };
});
