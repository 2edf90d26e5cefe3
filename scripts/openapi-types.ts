/** `npm run openapi:types`: regenerates the typed client's types from the OpenAPI document. */
import fs from "node:fs";
import path from "node:path";
import { CLIENT_TYPES_FILE, generateClientTypes } from "@/lib/openapi/client-types";

const file = path.join(process.cwd(), CLIENT_TYPES_FILE);
fs.mkdirSync(path.dirname(file), { recursive: true });
fs.writeFileSync(file, await generateClientTypes());
console.log(`Wrote ${CLIENT_TYPES_FILE}.`);
