"use server";

import { headers } from "next/headers";
import { z } from "zod";
import { clientAddress } from "@/lib/auth/trust";
import type { ActionState } from "@/lib/dashboard/action-state";
import { signedInAction } from "@/lib/dashboard/admin-action";
import { resignSession } from "@/lib/dashboard/session-cookie";
import { changeOwnPassword } from "@/lib/points/accounts/own-password";

export type ChangePasswordState = ActionState<{ otherSessionsEnded: true }>;

const changePasswordForm = z.object({
  currentPassword: z.string().default(""),
  newPassword: z.string().default(""),
  confirmPassword: z.string().default(""),
});

/**
 * Account → Change password, for any signed-in user: changeOwnPassword decides; this browser's
 * session is then signed again with the new session version, so it alone stays signed in.
 */
export const changePasswordAction = signedInAction(
  changePasswordForm,
  async (form, { user, runtime }) => {
    const changed = await changeOwnPassword(runtime, {
      user,
      ...form,
      address: clientAddress(Object.fromEntries((await headers()).entries())),
    });
    if (!changed.ok) {
      return changed.reason === "wrong_password"
        ? { ok: false, error: changed.message, fields: { currentPassword: "This is not your current password." } }
        : { ok: false, error: changed.message };
    }
    await resignSession(user.userId, changed.sessionVersion);
    return { ok: true, otherSessionsEnded: true } as const;
  },
  { messages: { invalid_request: "Check the highlighted field; your password was not changed." } },
);
