import type { Metadata } from "next";
import { ReadOnlyNotice } from "@/components/dashboard/account/read-only-notice";
import { AddEndpointCard, EndpointList, WebhooksHeader } from "@/components/dashboard/webhooks/sections";
import { pageContext } from "@/lib/dashboard/context";
import {
  addEndpointAction,
  deleteEndpointAction,
  endpointStatusAction,
  recoverAction,
  redeliverAction,
  rotateSecretAction,
  sendTestAction,
} from "./actions";
import { loadWebhooksPage } from "./load";

export const metadata: Metadata = { title: "Webhooks · Points" };

const endpointActions = {
  endpoint: {
    test: sendTestAction,
    rotate: rotateSecretAction,
    status: endpointStatusAction,
    remove: deleteEndpointAction,
  },
  recover: recoverAction,
  redeliver: redeliverAction,
};

export default async function WebhooksPage() {
  const context = await pageContext();
  const { canEdit, endpoints } = await loadWebhooksPage(context);

  return (
    <>
      <WebhooksHeader />
      <div className="space-y-6">
        {!canEdit && <ReadOnlyNotice what="your organisation's webhook endpoints" />}
        <AddEndpointCard canEdit={canEdit} action={addEndpointAction} />
        <EndpointList endpoints={endpoints} canEdit={canEdit} actions={endpointActions} />
      </div>
    </>
  );
}
