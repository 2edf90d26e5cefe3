import type { PageContext } from "@/lib/dashboard/context";
import { type ApiKeySummary, listApiKeys } from "@/lib/points/accounts/api-keys";

/** The API keys page: the organisation's keys, how many are active, and whether the user may change them. */
export interface ApiKeysPageState {
  canEdit: boolean;
  keys: ApiKeySummary[];
  /** Keys not revoked. */
  active: number;
}

/** Reads the organisation's keys. */
export async function loadApiKeysPage({ user, runtime }: PageContext): Promise<ApiKeysPageState> {
  const keys = await listApiKeys(runtime.db, user.organizationId);
  return {
    canEdit: user.role === "admin",
    keys,
    active: keys.filter((key) => key.revokedAt === null).length,
  };
}
