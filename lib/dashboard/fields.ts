import { z } from "zod";

/** A purchase's ID as a form sends it (`tu_…`, lib/ids.ts); anything else names no purchase. */
export const topUpIdField = z.string().regex(/^tu_[A-Za-z0-9]{1,40}$/);
