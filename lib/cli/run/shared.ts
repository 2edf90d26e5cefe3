import { eq } from "drizzle-orm";
import { topUps } from "@/lib/db/schema";
import type { Runtime } from "@/lib/server/runtime";

/** A refusal found while running (an unknown id, say): the reason is for the operator. */
export class CommandRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = "CommandRefused";
  }
}

export async function getTopUp(db: Runtime["db"], id: string) {
  const [topUp] = await db.select().from(topUps).where(eq(topUps.id, id));
  return topUp;
}

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
