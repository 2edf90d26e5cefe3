import { addUser } from "@/lib/points/accounts/members";
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
