"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { type ActionState, actionError, invalidForm } from "@/components/dashboard/account/action-state";
import { requireAdmin } from "@/lib/auth/session";
import { createApiKey, revokeApiKey } from "@/lib/points/api-keys";
import { getRuntime } from "@/lib/runtime";

export type CreateKeyState = ActionState<{ apiKey: string; prefix: string }>;
export type RevokeKeyState = ActionState<{ revoked: boolean }>;

/** API keys → Create: the whole key goes back to this admin once and is never stored. */
export async function createApiKeyAction(_state: CreateKeyState, _formData: FormData): Promise<CreateKeyState> {
  try {
    const user = await requireAdmin();
    const runtime = await getRuntime();
    const created = await createApiKey(runtime.db, user.organizationId, runtime.clock);
    revalidatePath("/dashboard/api-keys");
    return { ok: true, apiKey: created.apiKey, prefix: created.prefix };
  } catch (error) {
    return actionError(error);
  }
}

const revokeForm = z.object({ keyId: z.string().min(1).max(100) });

/** API keys → Revoke (after the confirmation step): only a key of the admin's own organisation. */
export async function revokeApiKeyAction(_state: RevokeKeyState, formData: FormData): Promise<RevokeKeyState> {
  try {
    const user = await requireAdmin();
    const parsed = revokeForm.safeParse({ keyId: formData.get("keyId") });
    if (!parsed.success) return invalidForm(parsed.error);
    const runtime = await getRuntime();
    // Scoped by the session's organisation: another organisation's key ID revokes nothing.
    const revoked = await revokeApiKey(runtime.db, parsed.data.keyId, runtime.clock, user.organizationId);
    revalidatePath("/dashboard/api-keys");
    return revoked
      ? { ok: true, revoked }
      : { ok: false, error: "That key was already revoked or does not belong to this organisation." };
  } catch (error) {
    return actionError(error);
  }
}
