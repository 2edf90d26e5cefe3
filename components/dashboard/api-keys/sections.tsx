import type { ComponentProps } from "react";
import { CreateKeyForm } from "@/components/dashboard/account/create-key-form";
import { Card, PageHeader } from "@/components/ui/card";
import type { ApiKeySummary } from "@/lib/points/accounts/api-keys";
import { ApiKeyRow, type RevokeKeyAction } from "./api-key-row";

/** The API keys page's title, and what a key of each scope can do. */
export function ApiKeysHeader() {
  return (
    <PageHeader
      title="API keys"
      description={
        <>
          Keys authenticate your REST requests: send{" "}
          <code className="font-mono text-xs">Authorization: Bearer &lt;key&gt;</code>. Anyone with a purchase key can
          buy and spend Points for your organisation, so keep keys secret; a spend key can read, quote and spend but
          never buy, and a read-only key can read and quote but never buy or spend.
        </>
      }
    />
  );
}

/** "Create a key": the whole key is shown once, right after. */
export function CreateKeyCard({
  canEdit,
  action,
}: {
  canEdit: boolean;
  action: ComponentProps<typeof CreateKeyForm>["action"];
}) {
  return (
    <Card
      title="Create a key"
      description="Name it for what uses it. The whole key is shown once, right after you create it."
    >
      <CreateKeyForm canEdit={canEdit} action={action} />
    </Card>
  );
}

/** "Keys": how many are active and revoked, and each key as a row. */
export function KeysCard({
  keys,
  active,
  canEdit,
  revoke,
}: {
  keys: ApiKeySummary[];
  active: number;
  canEdit: boolean;
  revoke: RevokeKeyAction;
}) {
  return (
    <Card
      title="Keys"
      description={`${active} active, ${keys.length - active} revoked. Last used is updated at most once a minute.`}
    >
      {keys.length === 0 ? (
        <p className="text-sm text-slate-600">No keys yet.</p>
      ) : (
        <ul className="-my-2 divide-y divide-slate-100" aria-label="API keys">
          {keys.map((key) => (
            <ApiKeyRow key={key.id} apiKey={key} canEdit={canEdit} revoke={revoke} />
          ))}
        </ul>
      )}
    </Card>
  );
}
