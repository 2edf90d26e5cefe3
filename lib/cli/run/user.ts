import { addUser, resetUserPassword } from "@/lib/points/accounts/members";
import type { Runtime } from "@/lib/server/runtime";
import type { PointsCommand } from "../commands";
import { type CliIo, printJson } from "../output";

export async function userAdd(
  command: Extract<PointsCommand, { kind: "user-add" }>,
  runtime: Runtime,
  io: CliIo,
): Promise<void> {
  const user = await addUser(runtime, command.organizationId, { email: command.email, role: command.role });
  if (command.json) {
    printJson(io, { user_id: user.userId, email: user.email, password: user.password, role: user.role });
    return;
  }
  io.stdout(
    [
      `Added ${user.role} ${user.email} (${user.userId}) to ${command.organizationId}.`,
      `  password:  ${user.password}  (shown only now)`,
      "",
    ].join("\n"),
  );
}

export async function userResetPassword(
  command: Extract<PointsCommand, { kind: "user-reset-password" }>,
  runtime: Runtime,
  io: CliIo,
): Promise<void> {
  const reset = await resetUserPassword(runtime.db, command.who);
  if (command.json) {
    printJson(io, {
      user_id: reset.userId,
      organization_id: reset.organizationId,
      email: reset.email,
      password: reset.password,
    });
    return;
  }
  io.stdout(
    [
      `Reset the password of ${reset.email} (${reset.userId}) in ${reset.organizationId}; their sessions have ended.`,
      `  password:  ${reset.password}  (shown only now)`,
      "",
    ].join("\n"),
  );
}
