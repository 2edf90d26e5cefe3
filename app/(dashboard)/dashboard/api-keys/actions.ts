"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import type { ActionState } from "@/lib/dashboard/action-state";
import { adminAction } from "@/lib/dashboard/admin-action";
import { createApiKey, revokeApiKey } from "@/lib/points/api-keys";

export type CreateKeyState = ActionState<{ apiKey: string; prefix: string }>;
export type RevokeKeyState = ActionState<{ revoked: boolean }>;

/** API keys → Create: the whole key goes back to this admin once and is never stored. */
export const createApiKeyAction = adminAction(z.object({}), async (_input, { user, runtime }) => {
  const created = await createApiKey(runtime.db, user.organizationId, runtime.clock);
  revalidatePath("/dashboard/api-keys");
  return { ok: true, apiKey: created.apiKey, prefix: created.prefix };
});

/** API keys → Revoke (after the confirmation step): only a key of the admin's own organisation. */
export const revokeApiKeyAction = adminAction(
  z.object({ keyId: z.string().min(1).max(100) }),
  async ({ keyId }, { user, runtime }) => {
    // Scoped by the session's organisation: another organisation's key ID revokes nothing.
    const revoked = await revokeApiKey(runtime.db, keyId, runtime.clock, user.organizationId);
    revalidatePath("/dashboard/api-keys");
    return revoked
      ? { ok: true, revoked }
      : { ok: false, error: "That key was already revoked or does not belong to this organisation." };
  },
);
