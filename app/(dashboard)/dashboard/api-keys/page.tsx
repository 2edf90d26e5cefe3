import type { Metadata } from "next";
import { CreateKeyForm } from "@/components/dashboard/account/create-key-form";
import { ReadOnlyNotice } from "@/components/dashboard/account/read-only-notice";
import { RevokeKeyForm } from "@/components/dashboard/account/revoke-key-form";
import { Badge } from "@/components/ui/badge";
import { Card, PageHeader } from "@/components/ui/card";
import { pageContext } from "@/lib/dashboard/context";
import { formatDateTime, formatPoints } from "@/lib/format";
import { listApiKeys } from "@/lib/points/accounts/api-keys";
import { createApiKeyAction, revokeApiKeyAction } from "./actions";

export const metadata: Metadata = { title: "API keys · Points" };

export default async function ApiKeysPage() {
  const { user, runtime } = await pageContext();
  const keys = await listApiKeys(runtime.db, user.organizationId);
  const canEdit = user.role === "admin";
  const active = keys.filter((key) => key.revokedAt === null).length;

  return (
    <>
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
      <div className="space-y-6">
        {!canEdit && <ReadOnlyNotice what="your organisation's keys" />}
        <Card
          title="Create a key"
          description="Name it for what uses it. The whole key is shown once, right after you create it."
        >
          <CreateKeyForm canEdit={canEdit} action={createApiKeyAction} />
        </Card>

        <Card
          title="Keys"
          description={`${active} active, ${keys.length - active} revoked. Last used is updated at most once a minute.`}
        >
          {keys.length === 0 ? (
            <p className="text-sm text-slate-600">No keys yet.</p>
          ) : (
            <ul className="-my-2 divide-y divide-slate-100" aria-label="API keys">
              {keys.map((key) => (
                <li
                  key={key.id}
                  className="flex flex-col gap-3 py-4 sm:flex-row sm:items-center sm:justify-between"
                  data-testid="api-key-row"
                  data-prefix={key.prefix}
                  data-scope={key.scope}
                >
                  <div className="min-w-0">
                    <p className="flex flex-wrap items-center gap-2">
                      <span
                        className="min-w-0 break-words text-sm font-semibold text-slate-900"
                        data-testid="api-key-name"
                      >
                        {key.name}
                      </span>
                      <span className="font-mono text-sm text-slate-700">{key.prefix}…</span>
                      {key.revokedAt ? <Badge tone="red">Revoked</Badge> : <Badge tone="green">Active</Badge>}
                      <ScopeBadge scope={key.scope} />
                    </p>
                    <dl className="mt-1.5 grid gap-x-6 gap-y-1 text-xs text-slate-600 sm:grid-flow-col">
                      <div>
                        <dt className="inline">Created </dt>
                        <dd className="inline text-slate-800">{formatDateTime(key.createdAt)}</dd>
                      </div>
                      <div>
                        <dt className="inline">Daily cap </dt>
                        <dd className="inline text-slate-800">
                          {key.dailyPointsCap === null ? "None" : `${formatPoints(key.dailyPointsCap)} Points`}
                        </dd>
                      </div>
                      <div>
                        <dt className="inline">Last used </dt>
                        <dd className="inline text-slate-800">
                          {key.lastUsedAt ? formatDateTime(key.lastUsedAt) : "Never"}
                        </dd>
                      </div>
                      {key.revokedAt && (
                        <div>
                          <dt className="inline">Revoked </dt>
                          <dd className="inline text-slate-800">{formatDateTime(key.revokedAt)}</dd>
                        </div>
                      )}
                    </dl>
                  </div>
                  {!key.revokedAt && (
                    <RevokeKeyForm
                      keyId={key.id}
                      name={key.name}
                      prefix={key.prefix}
                      canEdit={canEdit}
                      action={revokeApiKeyAction}
                    />
                  )}
                </li>
              ))}
            </ul>
          )}
        </Card>
      </div>
    </>
  );
}

function ScopeBadge({ scope }: { scope: string }) {
  if (scope === "read") return <Badge tone="blue">Read only</Badge>;
  if (scope === "spend") return <Badge tone="amber">Spend</Badge>;
  return <Badge tone="indigo">Purchase</Badge>;
}
