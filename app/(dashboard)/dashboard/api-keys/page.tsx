import type { Metadata } from "next";
import { ReadOnlyNotice } from "@/components/dashboard/account/read-only-notice";
import { ApiKeysHeader, CreateKeyCard, KeysCard } from "@/components/dashboard/api-keys/sections";
import { pageContext } from "@/lib/dashboard/context";
import { createApiKeyAction, revokeApiKeyAction } from "./actions";
import { loadApiKeysPage } from "./load";

export const metadata: Metadata = { title: "API keys · Points" };

export default async function ApiKeysPage() {
  const context = await pageContext();
  const { canEdit, keys, active } = await loadApiKeysPage(context);

  return (
    <>
      <ApiKeysHeader />
      <div className="space-y-6">
        {!canEdit && <ReadOnlyNotice what="your organisation's keys" />}
        <CreateKeyCard canEdit={canEdit} action={createApiKeyAction} />
        <KeysCard keys={keys} active={active} canEdit={canEdit} revoke={revokeApiKeyAction} />
      </div>
    </>
  );
}
