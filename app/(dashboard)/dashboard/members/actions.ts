"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { type ActionState, actionError, invalidForm } from "@/components/dashboard/account/action-state";
import { requireAdmin } from "@/lib/auth/session";
import { addMember } from "@/lib/points/members";
import { getRuntime } from "@/lib/runtime";

export type AddMemberState = ActionState<{ email: string; role: string; password: string }>;

const memberForm = z.object({
  email: z.string().trim().min(1, "Enter an email address.").max(254, "That email address is too long."),
  role: z.enum(["admin", "member"], { error: "Choose admin or member." }),
});

/** Members → Add: the generated password goes back to this admin once. */
export async function addMemberAction(_state: AddMemberState, formData: FormData): Promise<AddMemberState> {
  try {
    const user = await requireAdmin();
    const parsed = memberForm.safeParse({ email: formData.get("email"), role: formData.get("role") });
    if (!parsed.success) return invalidForm(parsed.error);
    const added = await addMember(await getRuntime(), user.organizationId, parsed.data);
    revalidatePath("/dashboard/members");
    return { ok: true, email: added.email, role: added.role, password: added.password };
  } catch (error) {
    return actionError(error);
  }
}
