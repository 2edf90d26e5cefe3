"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import type { ActionState } from "@/lib/dashboard/action-state";
import { adminAction } from "@/lib/dashboard/admin-action";
import { API_KEY_SCOPES, type ApiKeyScope, createApiKey, revokeApiKey } from "@/lib/points/accounts/api-keys";

export type CreateKeyState = ActionState<{
  name: string;
  apiKey: string;
  prefix: string;
  scope: ApiKeyScope;
  dailyPointsCap: number | null;
}>;

const createKeyForm = z.object({
  // As typed; createApiKey trims and checks it, so an empty one is refused on its field.
  name: z.string().default(""),
  scope: z.enum(API_KEY_SCOPES, { error: "Choose Purchase, Spend or Read only." }).default("purchase"),
  // Text as typed; empty means no cap. Its range is createApiKey's to check.
  dailyPointsCap: z
    .string()
    .trim()
    .regex(/^[0-9]{0,10}$/, { error: "Enter a whole number of Points, or leave it empty for no cap." })
    .default(""),
});
export type RevokeKeyState = ActionState<{ revoked: boolean }>;

/** API keys → Create: the whole key goes back to this admin once and is never stored. */
export const createApiKeyAction = adminAction(
  createKeyForm,
  async (form, { user, runtime }) => {
    const created = await createApiKey(runtime.db, user.organizationId, runtime.clock, {
      name: form.name,
      scope: form.scope,
      dailyPointsCap: form.dailyPointsCap === "" ? null : Number(form.dailyPointsCap),
    });
    revalidatePath("/dashboard/api-keys");
    return {
      ok: true,
      name: created.name,
      apiKey: created.apiKey,
      prefix: created.prefix,
      scope: created.scope,
      dailyPointsCap: created.dailyPointsCap,
    };
  },
  { messages: { invalid_request: "Check the highlighted field; no key was created." } },
);

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
