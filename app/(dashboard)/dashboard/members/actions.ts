"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import type { ManageMemberState } from "@/components/dashboard/account/member-actions";
import type { ActionState } from "@/lib/dashboard/action-state";
import { adminAction } from "@/lib/dashboard/admin-action";
import { addMember, changeMemberRole, removeMember, resetMemberPassword } from "@/lib/points/accounts/members";

export type AddMemberState = ActionState<{ email: string; role: string; password: string }>;

const memberForm = z.object({
  email: z.string().trim().min(1, "Enter an email address.").max(254, "That email address is too long."),
  role: z.enum(["admin", "member"], { error: "Choose admin or member." }),
});

/** Members → Add: the generated password goes back to this admin once. */
export const addMemberAction = adminAction(memberForm, async (member, { user, runtime }) => {
  const added = await addMember(runtime, user.organizationId, member);
  revalidatePath("/dashboard/members");
  return { ok: true, email: added.email, role: added.role, password: added.password };
});

const manageForm = z.object({
  userId: z.string().min(1).max(100),
  intent: z.enum(["role", "remove", "reset"]),
  role: z.enum(["admin", "member"]).optional(),
});

/**
 * Members → Change role / Reset password / Remove, for one person of the admin's own organisation.
 * A reset password goes back to this admin once; the form never posts it back (useFormAction).
 */
export const manageMemberAction = adminAction(
  manageForm,
  async ({ userId, intent, role }, { user, runtime }): Promise<NonNullable<ManageMemberState>> => {
    if (intent === "reset") {
      const reset = await resetMemberPassword(runtime.db, user.organizationId, userId);
      return reset.ok
        ? { ok: true, done: "reset", email: reset.email, password: reset.password }
        : { ok: false, error: reset.message };
    }
    const changed =
      intent === "remove"
        ? await removeMember(runtime.db, user.organizationId, userId, user.userId)
        : await changeMemberRole(runtime.db, user.organizationId, userId, role ?? "");
    if (!changed.ok) return { ok: false, error: changed.message };
    revalidatePath("/dashboard", "layout");
    return { ok: true, done: intent === "remove" ? "removed" : "role" };
  },
);
