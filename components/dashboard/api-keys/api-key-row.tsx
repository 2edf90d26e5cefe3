import type { ComponentProps } from "react";
import { RevokeKeyForm } from "@/components/dashboard/account/revoke-key-form";
import { Badge } from "@/components/ui/badge";
import { formatDateTime, formatPoints } from "@/lib/format";
import type { ApiKeySummary } from "@/lib/points/accounts/api-keys";

export type RevokeKeyAction = ComponentProps<typeof RevokeKeyForm>["action"];

/** One key: its name, prefix, state and scope, when it was created, last used and revoked, and Revoke while active. */
export function ApiKeyRow({
  apiKey: key,
  canEdit,
  revoke,
}: {
  apiKey: ApiKeySummary;
  canEdit: boolean;
  revoke: RevokeKeyAction;
}) {
  return (
    <li
      className="flex flex-col gap-3 py-4 sm:flex-row sm:items-center sm:justify-between"
      data-testid="api-key-row"
      data-prefix={key.prefix}
      data-scope={key.scope}
    >
      <div className="min-w-0">
        <p className="flex flex-wrap items-center gap-2">
          <span className="min-w-0 break-words text-sm font-semibold text-slate-900" data-testid="api-key-name">
            {key.name}
          </span>
          <span className="font-mono text-sm text-slate-700">{key.prefix}…</span>
          {key.revokedAt ? <Badge tone="red">Revoked</Badge> : <Badge tone="green">Active</Badge>}
          <ScopeBadge scope={key.scope} />
        </p>
        <KeyDates apiKey={key} />
      </div>
      {!key.revokedAt && (
        <RevokeKeyForm keyId={key.id} name={key.name} prefix={key.prefix} canEdit={canEdit} action={revoke} />
      )}
    </li>
  );
}

/** When the key was created, its daily cap, when it was last used and, once revoked, when. */
function KeyDates({ apiKey: key }: { apiKey: ApiKeySummary }) {
  return (
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
        <dd className="inline text-slate-800">{key.lastUsedAt ? formatDateTime(key.lastUsedAt) : "Never"}</dd>
      </div>
      {key.revokedAt && (
        <div>
          <dt className="inline">Revoked </dt>
          <dd className="inline text-slate-800">{formatDateTime(key.revokedAt)}</dd>
        </div>
      )}
    </dl>
  );
}

function ScopeBadge({ scope }: { scope: string }) {
  if (scope === "read") return <Badge tone="blue">Read only</Badge>;
  if (scope === "spend") return <Badge tone="amber">Spend</Badge>;
  return <Badge tone="indigo">Purchase</Badge>;
}
